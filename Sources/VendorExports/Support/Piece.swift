/// Where the bytes of one JSON value of an output event come from. Events are planned as pieces
/// first and written once (``EventRenderer``), so that what the vendor wrote is copied byte for
/// byte, never decoded and encoded again.
enum Piece {
    /// Nothing: the member is left out of the event.
    case absent
    /// A JSON value in the record, copied as it is (bytes `lower..<upper`).
    case record(UInt32, UInt32)
    /// Record bytes written between quotes: a JSON number's text used as a string (64-bit ids),
    /// or the content of a string without its quotes.
    case quoted(UInt32, UInt32)
    /// Encoded JSON in the workspace's scratch bytes (derived ids, timestamps, decoded text).
    case scratch(UInt32, UInt32)
    /// `true` or `false`.
    case bool(Bool)
    /// A fixed string, written quoted (its text needs no escaping).
    case text(StaticString)
    /// An object whose members are `members[lower..<upper]` of the workspace, and the length
    /// of its JSON text (measured when it was assembled).
    case object(UInt32, UInt32, length: UInt32)
    /// An array whose items are `items[lower..<upper]` of the workspace, and the length of its
    /// JSON text.
    case array(UInt32, UInt32, length: UInt32)
    /// The `context` object of the workspace's ``ContextFields``, in their sections.
    case contextFields

    /// The JSON value of the record at `range`.
    @inline(__always)
    static func json(_ range: Range<Int>) -> Piece { .record(UInt32(range.lowerBound), UInt32(range.upperBound)) }

    /// Whether the piece writes something.
    @inline(__always)
    var isPresent: Bool {
        if case .absent = self { return false }
        return true
    }

    /// The number of bytes the piece writes (for the context fields, see
    /// ``ContextFields/length``).
    @inline(__always)
    var length: Int {
        switch self {
        case .absent, .contextFields: return 0
        case .record(let a, let b), .scratch(let a, let b): return Int(b &- a)
        case .quoted(let a, let b): return Int(b &- a) + 2
        case .bool(let v): return v ? 4 : 5
        case .text(let s): return s.utf8CodeUnitCount + 2
        case .object(_, _, let n), .array(_, _, let n): return Int(n)
        }
    }
}

/// One member of an object the recipe assembles: a key (a JSON string piece) and its value, or
/// a whole member of the record copied as it is (`key` its span, `value` absent).
struct Member {
    /// The number of bytes the member writes (`key:value`, or the span).
    @inline(__always)
    var length: Int { value.isPresent ? key.length + 1 + value.length : key.length }

    /// The key: `.record` of a string in the record (with its quotes) or `.text`; or the
    /// member's whole text when `value` is absent.
    var key: Piece
    /// The value; absent for a member copied whole.
    var value: Piece
}
