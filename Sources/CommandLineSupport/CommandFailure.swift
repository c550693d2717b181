/// Why a command ends unsuccessfully: the process exit status and the one line it prints on
/// stderr (after `<tool>: `). Both command-line tools throw it and end through ``ToolMain``.
package struct CommandFailure: Error, CustomStringConvertible {
    /// The exit status.
    package var code: Int32
    /// What is printed on stderr, after the tool's name.
    package var message: String

    /// A failure with `code` and `message`.
    package init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    /// A usage or config error: exit status 2, nothing was done.
    package static func usage(_ message: String) -> CommandFailure { CommandFailure(code: 2, message: message) }

    package var description: String { message }
}
