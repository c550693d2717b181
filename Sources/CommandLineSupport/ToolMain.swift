import ArgumentParser
import Foundation

/// How both command-line tools start and end: one mapping from errors to exit statuses.
///
/// | what happened | exit status | stderr |
/// |---|---|---|
/// | the command returned | 0 | |
/// | `--help`, `--version` | 0 | (the help on stdout) |
/// | bad arguments | 2 (not ArgumentParser's 64) | `<tool>: <ArgumentParser's message> (see --help)` |
/// | ``CommandFailure`` thrown | its `code` | `<tool>: <message>` |
/// | `ExitCode` thrown | its code | (the command printed what it had to) |
/// | any other error | `otherwise` | `<tool>: <error>` |
package enum ToolMain {
    /// Parses the arguments with `root`, runs the command, and exits with the status above.
    package static func run(_ root: any ParsableCommand.Type, tool: String, otherwise: Int32) async -> Never {
        var command: any ParsableCommand
        do {
            command = try root.parseAsRoot()
        } catch {
            if root.exitCode(for: error) == .success { root.exit(withError: error) }
            fail(tool, .usage(root.message(for: error) + " (see --help)"))
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            Foundation.exit(0)
        } catch let failure as CommandFailure {
            fail(tool, failure)
        } catch let code as ExitCode {
            Foundation.exit(code.rawValue)
        } catch {
            // `--help` parses into ArgumentParser's help command, which "fails" with the help text.
            if root.exitCode(for: error) == .success { root.exit(withError: error) }
            fail(tool, CommandFailure(code: otherwise, message: "\(error)"))
        }
    }

    /// Prints `tool: message` on stderr and exits with the failure's code.
    package static func fail(_ tool: String, _ failure: CommandFailure) -> Never {
        FileHandle.standardError.write(Data("\(tool): \(failure.message)\n".utf8))
        Foundation.exit(failure.code)
    }
}
