import JSONCore

/// One element of a JSON array read by ``JSONArrayReader``.
package struct JSONArrayElement: Sendable, Equatable {
    /// The element's place in the array, from 1.
    package var index: Int
    /// The file offset of the element's first byte.
    package var start: Int
    /// The file offset just past the element's last byte.
    package var end: Int
    /// The element's bytes, exactly as in the file (valid JSON; pretty-printing kept).
    package var bytes: [UInt8]
    /// What kind of value it is (the caller decides what to do with elements that are not
    /// objects).
    package var kind: JSONKind

    /// An element.
    package init(index: Int, start: Int, end: Int, bytes: [UInt8], kind: JSONKind) {
        self.index = index
        self.start = start
        self.end = end
        self.bytes = bytes
        self.kind = kind
    }
}

/// Where a ``JSONArrayReader``'s source starts in the file.
package enum JSONArrayPosition: Sendable, Equatable {
    /// At the start of the file: whitespace (and a UTF-8 byte order mark), then `[`.
    case fileStart
    /// Inside the array, at the start of element number `index` (or whitespace before it),
    /// which is at file offset `offset`: an element's ``JSONArrayElement/start``.
    case elementStart(offset: Int, index: Int)
    /// Inside the array, just after element number `index`, at file offset `offset`: an
    /// element's ``JSONArrayElement/end``. A `,` and the next element, or `]`, follow.
    case afterElement(offset: Int, index: Int)
}

/// Why a file is not a JSON array of elements within the limit. Offsets are file offsets
/// (0-based) of the byte at fault.
package enum JSONArrayError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The array's structure is broken at `offset`: no `[`, a missing `,`, a `,` before `]`.
    case syntax(offset: Int, message: String)
    /// Element `index` is not valid JSON: the problem is at `offset`.
    case invalidElement(index: Int, offset: Int, message: String)
    /// Element `index`, which starts at `offset`, is longer than `limit` bytes.
    case elementTooLarge(index: Int, offset: Int, limit: Int)
    /// The file ends at `offset` before the array is closed.
    case truncated(offset: Int, message: String)
    /// Something other than whitespace follows the array's `]`, at `offset`.
    case trailingData(offset: Int)

    /// The error as one line of text for logs and messages.
    package var description: String {
        switch self {
        case .syntax(let offset, let message):
            return "\(message) at byte \(offset)"
        case .invalidElement(let index, let offset, let message):
            return "element \(index): \(message) at byte \(offset)"
        case .elementTooLarge(let index, let offset, let limit):
            return "element \(index) at byte \(offset) is longer than \(limit) bytes"
        case .truncated(let offset, let message):
            return "the file ends at byte \(offset) \(message)"
        case .trailingData(let offset):
            return "data after the array's closing ']' at byte \(offset)"
        }
    }
}
