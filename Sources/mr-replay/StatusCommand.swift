import ArgumentParser
import CommandLineSupport
import Foundation
import ReplayKit

/// `mr-replay status`.
struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show where each input of a state directory stands, how the last run ended, and the last runs.")

    @Option(name: .long, help: "Configuration file (for state_dir).")
    var config: String?

    @Option(name: .long, help: "State directory. Default: state_dir from the config.")
    var stateDir: String?

    @Flag(name: .long, help: "Print JSON.")
    var json = false

    @Option(name: .long, help: "How many of the last runs to list, from <state_dir>/reports/.")
    var runs = StatusReader.runsShown

    @Option(
        name: .long,
        help: "Show a partitioned backfill instead: every partition worker and replaying shard, from the partition's location.")
    var partitions: String?

    func run() async throws {
        if let partitions { return try await showPartition(partitions) }
        var directory = stateDir
        if directory == nil {
            // Only state_dir is needed, read leniently: no write key (operators checking a job
            // rarely have it), and no other setting can stop it.
            do {
                let path = MRReplay.configPath(config)
                directory = try ConfigLoader.stateDirectory(path: path, environment: ProcessInfo.processInfo.environment)
            } catch {
                throw CommandFailure.usage("\(error)")
            }
        }
        do {
            let status = try StatusReader.read(stateDirectory: directory!, runs: max(0, runs))
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(status), as: UTF8.self))
            } else {
                print(StatusReader.text(status), terminator: "")
            }
        } catch {
            throw CommandFailure.usage("\(error)")
        }
    }

    /// `status --partitions`: the partition's workers and shards, as they reported to it.
    func showPartition(_ location: String) async throws {
        let loaded: ReplayConfig
        do {
            // For an s3:// location's store settings (inputs.s3); no write key needed.
            let path = MRReplay.configPath(config)
            loaded =
                try path.map { try ConfigLoader.load(path: $0, environment: ProcessInfo.processInfo.environment, requireWriteKey: false) }
                ?? ConfigLoader.load(text: "", file: "<defaults>", environment: ProcessInfo.processInfo.environment, requireWriteKey: false)
        } catch {
            throw CommandFailure.usage("\(error)")
        }
        do {
            let status = try await S3HTTPClient.withClient { http in
                try await PartitionStatus.readOnThread(location: location, config: loaded, http: http)
            }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(status), as: UTF8.self))
            } else {
                print(status.text, terminator: "")
            }
        } catch let failure as InputFailure {
            throw CommonOptions.failure(failure)
        } catch {
            throw CommandFailure.usage("\(error)")
        }
    }
}
