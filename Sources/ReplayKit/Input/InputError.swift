/// An input that cannot be resolved or read (a path that does not exist, a read that failed,
/// corrupt gzip data); its message names the input.
package struct InputError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, naming the input.
    package let message: String
    /// Creates an error.
    package init(_ message: String) { self.message = message }
    /// The message.
    package var description: String { message }
}
