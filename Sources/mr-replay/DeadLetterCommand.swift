import ArgumentParser
import CommandLineSupport
import Foundation
import Logging
import ReplayKit

/// `mr-replay dead-letter list|retry`.
struct DeadLetterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dead-letter",
        abstract: "List the dead-lettered events of a state directory, or send them again once the cause is fixed.",
        subcommands: [List.self, Retry.self])

    /// Where the state directory is: `--state-dir`, else `state_dir` of the config.
    struct Location: ParsableArguments {
        @Option(name: .long, help: "Configuration file (default: Config/replay.yaml if present, else built-in defaults).")
        var config: String?

        @Option(name: .long, help: "State directory (for a sharded run: its shard-K-of-N directory). Default: state_dir from the config.")
        var stateDir: String?

        @Option(name: .long, help: "Only the events dead-lettered with this reason (e.g. rejected_400, too_large).")
        var reason: String?

        /// The configuration file to read: `--config`, else `Config/replay.yaml` when present.
        var configPath: String? {
            MRReplay.configPath(config)
        }
    }

    /// `mr-replay dead-letter list`.
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Count the dead-lettered events by reason and list them (source:line, reason, messageId), from every dead-letter file.")

        @OptionGroup var location: Location

        @Flag(name: .long, help: "Print JSON: files, total, reasons, events.")
        var json = false

        func run() throws {
            do {
                // Needs only state_dir: no write key.
                let directory =
                    try location.stateDir
                    ?? ConfigLoader.stateDirectory(path: location.configPath, environment: ProcessInfo.processInfo.environment)
                let listing = try DeadLetterListing.read(stateDirectory: directory, reason: location.reason)
                print(json ? listing.json : listing.text, terminator: json ? "\n" : "")
            } catch {
                throw CommandFailure.usage("\(error)")
            }
        }
    }

    /// `mr-replay dead-letter retry`.
    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Send the dead-lettered events again (same enrichment, privacy rules and engine as a run): delivered ones leave the dead-letter files, the others stay with their new reason.",
            discussion: """
                Exit codes: \(ExitStatus.delivered) every event sent again was delivered; \(ExitStatus.deadLettered) some \
                were dead-lettered again; \(ExitStatus.usage) usage or config error, nothing sent; \(ExitStatus.refused) \
                the destination refused the credentials or the path; \(ExitStatus.interrupted) interrupted or stopped \
                on transient failures (what was not delivered stays; retry again).
                """)

        @OptionGroup var location: Location

        func run() async throws {
            var config: ReplayConfig
            do {
                let env = ProcessInfo.processInfo.environment
                if let path = location.configPath {
                    config = try ConfigLoader.load(path: path, environment: env)
                } else {
                    config = try ConfigLoader.load(text: "", file: "<defaults>", environment: env)
                }
            } catch {
                throw CommandFailure.usage("\(error)")
            }
            if let stateDir = location.stateDir { config.stateDir = stateDir }
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = .warning
                return handler
            }
            let logger = Logger(label: "mr-replay")
            let services = CommandServices(config: config, stateDirectory: config.stateDir, logger: logger)
            let retry = DeadLetterRetry(
                config: config, stateDirectory: config.stateDir, reason: location.reason,
                logger: logger, embeddedCollector: services.embeddedCollectorURL)
            let report: DeadLetterRetryReport
            do {
                report = try await services.run(RunService { stop in try await retry.run(stop: stop) })
            } catch let busy as StateDirectoryBusy {
                throw CommandFailure(code: ExitStatus.interrupted, message: busy.description)
            } catch {
                throw CommandFailure.usage("\(error)")
            }
            FileHandle.standardError.write(Data((report.summary + "\n").utf8))
            let code = report.status.exitCode
            if code != 0 { throw ExitCode(code) }
        }
    }
}
