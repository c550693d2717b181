/// A problem with the configuration file, located by file, line and column.
///
/// Messages never include secret values (the write key or the contents of `write_key_file`).
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The configuration file's path (or a label such as `<defaults>`).
    public let file: String
    /// 1-based line, or 0 when the problem has no position.
    public let line: Int
    /// 1-based column, or 0 when the problem has no position.
    public let column: Int
    /// What is wrong.
    public let message: String

    /// Creates an error at a position in `file`.
    public init(file: String, line: Int, column: Int, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// `file:line:column: message` (or `file: message` when there is no position).
    public var description: String {
        line > 0 ? "\(file):\(line):\(column): \(message)" : "\(file): \(message)"
    }
}
