/// Why a byte sequence is not the JSON that was expected.
public struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The broad class of the problem, so callers can map it to a stable reason code.
    public enum Kind: String, Sendable, Equatable {
        /// The bytes are not valid JSON.
        case syntax
        /// A string holds bytes that are not valid UTF-8.
        case invalidUTF8
        /// The document is valid JSON but not the kind of value that was asked for.
        case unexpectedType
        /// Arrays and objects nest deeper than ``JSONScanner/maximumDepth``.
        case tooDeep
    }

    /// The broad class of the problem.
    public var kind: Kind
    /// Byte offset (0-based) in the scanned buffer where the problem was found.
    public var offset: Int
    /// A short human-readable explanation.
    public var message: String

    /// Creates an error.
    public init(_ kind: Kind, at offset: Int, _ message: String) {
        self.kind = kind
        self.offset = offset
        self.message = message
    }

    public var description: String { "\(message) at byte \(offset + 1)" }
}
