import ArgumentParser
import CommandLineSupport
import Foundation
import Logging
import ReplayKit

/// The `mr-replay` command.
@main
struct MRReplay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mr-replay",
        abstract: "Replay analytics events (NDJSON) into a MetaRouter/Segment-compatible endpoint.",
        discussion: ExitStatus.help,
        version: "mr-replay \(ReplayConfig.toolVersion) (commit \(BuildInfo.commit))",
        subcommands: [Run.self, Partition.self, Validate.self, Status.self, DeadLetterCommand.self])

    /// Runs the command; errors map to exit statuses as in every tool of this package
    /// (``ToolMain``): argument errors exit 2, a run's own status is an ``ExitStatus``.
    static func main() async {
        await ToolMain.run(MRReplay.self, tool: "mr-replay", otherwise: 2)
    }

    /// The configuration file a command reads: `given` (`--config`), else `Config/replay.yaml`
    /// when it exists, else none (the built-in defaults).
    static func configPath(_ given: String?) -> String? {
        given ?? (FileManager.default.fileExists(atPath: "Config/replay.yaml") ? "Config/replay.yaml" : nil)
    }
}

/// Options shared by the subcommands.
struct CommonOptions: ParsableArguments {
    @Option(name: .long, help: "Configuration file (default: Config/replay.yaml if present, else built-in defaults).")
    var config: String?

    @Argument(help: "Inputs: files, directories, glob patterns, s3://bucket/prefix/ or s3://bucket/key, or - for stdin.")
    var inputs: [String] = []

    @Option(
        name: .long,
        help: "Overrides inputs.max_event_age: auto (7d for SDK snapshots, counted from the file's time; none for NDJSON), off, or e.g. 7d, 36h, 90m."
    )
    var maxEventAge: String?

    @Option(
        name: .long,
        help: "Read another tool's export: amplitude, mixpanel, ga4, mparticle, posthog or rudderstack (overrides inputs.from; docs/recipes.md)."
    )
    var from: String?

    /// Loads the configuration, or exits with code 2. `requireWriteKey: false` for commands that
    /// never send.
    func loadConfig(requireWriteKey: Bool = true) throws -> ReplayConfig {
        var config = try loadConfigFile(requireWriteKey: requireWriteKey)
        if let from {
            do {
                try config.read(from: from)
            } catch {
                throw CommandFailure.usage("--from: \(error)")
            }
        }
        if let text = maxEventAge {
            guard let age = ReplayConfig.EventAge(parsing: text) else {
                throw CommandFailure.usage("--max-event-age must be auto, off, or a duration such as 7d, 36h, 90m (got '\(text)')")
            }
            config.inputs.maxEventAge = age
        }
        return config
    }

    private func loadConfigFile(requireWriteKey: Bool) throws -> ReplayConfig {
        let env = ProcessInfo.processInfo.environment
        do {
            if let path = MRReplay.configPath(config) {
                return try ConfigLoader.load(path: path, environment: env, requireWriteKey: requireWriteKey)
            }
            return try ConfigLoader.load(text: "", file: "<defaults>", environment: env, requireWriteKey: requireWriteKey)
        } catch {
            throw CommandFailure.usage("\(error)")
        }
    }

    /// Checks the inputs without reading any S3 store (files exist, `s3://` locations are
    /// valid), or exits with code 2: a run checks them before it waits for its state directory.
    func checkInputs() throws {
        guard !inputs.isEmpty else {
            throw CommandFailure.usage("no inputs given (use - for stdin)")
        }
        do {
            try InputResolver.check(inputs)
        } catch {
            throw Self.failure(error)
        }
    }

    /// Resolves the inputs, listing `s3://` ones as `config` says; warnings (an empty prefix) go
    /// to stderr. Exits with code 2 for inputs that match nothing, and as ``InputFailure`` says
    /// for an S3 store that refused (3) or failed past its retries (75). `s3://` inputs are read
    /// with `http`'s client, while it runs.
    func resolveInputs(config: ReplayConfig, http: S3HTTPClient) async throws -> [InputSource] {
        try checkInputs()
        do {
            return try await InputResolver.resolve(inputs, config: config, http: http) {
                FileHandle.standardError.write(Data("mr-replay: warning: \($0)\n".utf8))
            }
        } catch {
            throw Self.failure(error)
        }
    }

    /// The command failure for an error about the inputs: an ``InputFailure``'s exit status,
    /// else a usage error (exit 2).
    static func failure(_ error: any Error) -> CommandFailure {
        if let failure = error as? InputFailure { return CommandFailure(code: failure.exitCode, message: failure.description) }
        return CommandFailure.usage("\(error)")
    }
}

/// `mr-replay validate`.
struct Validate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check inputs without sending or changing state. Exit 0 all valid, 1 some invalid, 2 config/argument error.")

    @OptionGroup var common: CommonOptions

    @Flag(name: .long, help: "Print one JSON object: lines, valid, invalid, blank, reasons.")
    var json = false

    func run() async throws {
        LoggingSystem.bootstrap(StreamLogHandler.standardError)  // stdout is the summary's
        let config = try common.loadConfig(requireWriteKey: false)  // validate never sends
        let summary: ValidationSummary = try await S3HTTPClient.withClient { http in
            let sources = try await common.resolveInputs(config: config, http: http)
            do {
                return try Validator.validate(config: config, inputs: sources)
            } catch {
                throw CommonOptions.failure(error)
            }
        }
        print(json ? summary.json : summary.text, terminator: json ? "\n" : "")
        if !summary.allValid { throw ExitCode(ExitStatus.deadLettered) }
    }
}
