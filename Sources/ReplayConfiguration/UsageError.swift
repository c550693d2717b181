/// A mistake in how the command was called.
public struct UsageError: Error, CustomStringConvertible, Sendable {
    /// What is wrong.
    public let description: String
    /// Creates a usage error.
    public init(_ description: String) { self.description = description }
}
