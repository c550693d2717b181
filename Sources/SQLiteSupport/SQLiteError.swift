/// A failed SQLite call.
package struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The database's path (or `in-memory database`), then SQLite's message.
    package let message: String
    /// The message.
    package var description: String { "sqlite: \(message)" }
}
