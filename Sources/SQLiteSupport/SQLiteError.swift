/// A failed SQLite call.
package struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// SQLite's message (for a failed open, the path first).
    package let message: String
    /// The message.
    package var description: String { "sqlite: \(message)" }
}
