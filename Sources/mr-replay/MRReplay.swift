import ArgumentParser
import CommandLineSupport
import Foundation
import ReplayKit

/// The `mr-replay` command.
@main
struct MRReplay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mr-replay",
        abstract: "Replay analytics events (NDJSON) into a MetaRouter/Segment-compatible endpoint.",
        discussion: ExitCodes.help,
        subcommands: [Run.self, Validate.self, Status.self, DeadLetterCommand.self])

    /// Runs the command; errors map to exit statuses as in every tool of this package
    /// (``ToolMain``): argument errors exit 2, a run's own status is in ``ExitCodes``.
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

    @Argument(help: "Inputs: files, directories, glob patterns, or - for stdin.")
    var inputs: [String] = []

    @Option(
        name: .long,
        help: "Overrides inputs.max_event_age: auto (7d for SDK snapshots, counted from the file's time; none for NDJSON), off, or e.g. 7d, 36h, 90m.")
    var maxEventAge: String?

    /// Loads the configuration, or exits with code 2. `requireWriteKey: false` for commands that
    /// never send.
    func loadConfig(requireWriteKey: Bool = true) throws -> ReplayConfig {
        var config = try loadConfigFile(requireWriteKey: requireWriteKey)
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

    /// Resolves the inputs, or exits with code 2.
    func resolveInputs() throws -> [InputSource] {
        guard !inputs.isEmpty else {
            throw CommandFailure.usage("no inputs given (use - for stdin)")
        }
        do {
            return try InputResolver.resolve(inputs)
        } catch {
            throw CommandFailure.usage("\(error)")
        }
    }
}

/// `mr-replay validate`.
struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check inputs without sending or changing state. Exit 0 all valid, 1 some invalid, 2 config/argument error.")

    @OptionGroup var common: CommonOptions

    @Flag(name: .long, help: "Print one JSON object: lines, valid, invalid, blank, reasons.")
    var json = false

    func run() throws {
        let config = try common.loadConfig(requireWriteKey: false)  // validate never sends
        let sources = try common.resolveInputs()
        let summary: ValidationSummary
        do {
            summary = try Validator.validate(config: config, inputs: sources)
        } catch {
            throw CommandFailure.usage("\(error)")
        }
        print(json ? summary.json : summary.text, terminator: json ? "\n" : "")
        if !summary.allValid { throw ExitCode(1) }
    }
}

