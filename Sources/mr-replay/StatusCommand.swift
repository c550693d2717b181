import ArgumentParser
import CommandLineSupport
import Foundation
import ReplayKit

/// `mr-replay status`.
struct Status: ParsableCommand {
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

    func run() throws {
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
}
