import JSONCore

/// One member of an object of a validated record, as ``ObjectMembers`` finds it.
package struct MemberRef {
    /// From the key's opening quote to the end of the value.
    package let span: Range<Int>
    /// The key's content, without quotes.
    package let key: Range<Int>
    /// Whether the key holds escapes.
    package let keyHasEscapes: Bool
    /// The value.
    package let value: ValueRef

    /// The key with its quotes (a JSON string's range).
    var quotedKey: Range<Int> { (key.lowerBound - 1)..<(key.upperBound + 1) }

    /// A member of a layout.
    init(_ m: JSONMember) {
        span = m.span
        key = m.key
        keyHasEscapes = m.keyHasEscapes
        value = ValueRef(m)
    }

    /// A member with these ranges.
    init(span: Range<Int>, key: Range<Int>, keyHasEscapes: Bool, value: ValueRef) {
        self.span = span
        self.key = key
        self.keyHasEscapes = keyHasEscapes
        self.value = value
    }
}

/// A member's key and where its value starts, before the value is skipped (see
/// ``ObjectWalker``).
struct PendingMember {
    /// The key's content, without quotes.
    let key: Range<Int>
    /// Whether the key holds escapes.
    let keyHasEscapes: Bool
    /// The value's first byte.
    let valueStart: Int
    /// The value's kind.
    let kind: JSONKind

    /// The member once its value is known to end at `end`.
    func member(endingAt end: Int) -> MemberRef {
        MemberRef(span: (key.lowerBound - 1)..<end, key: key, keyHasEscapes: keyHasEscapes, value: ValueRef(range: valueStart..<end, kind: kind))
    }
}

/// Walks the members of an object of a validated record in one pass: each member's value is
/// either skipped (``skip()``) or walked by the caller, who then ``resume(at:)``s after it. So a
/// nested object the caller reads anyway is not skipped first and read again. The object's end
/// is known once ``next()`` returns nil.
struct ObjectWalker {
    private let buffer: UnsafeBufferPointer<UInt8>
    private var p: Int
    private var pending: PendingMember?
    /// One past the closing brace, once the walk has reached it.
    private(set) var end: Int?

    /// A walk of the object whose `{` is at `start` of `buffer` (validated data).
    init(_ buffer: UnsafeBufferPointer<UInt8>, openingAt start: Int) {
        self.buffer = buffer
        p = start + 1
    }

    /// The next member, its value not yet skipped; nil at the closing brace.
    mutating func next() -> PendingMember? {
        precondition(pending == nil, "ObjectWalker: skip or resume after each member")
        let limit = buffer.count
        p = Skip.whitespace(buffer, from: p, limit: limit)
        if buffer[p] == UInt8(ascii: ",") { p = Skip.whitespace(buffer, from: p + 1, limit: limit) }
        if buffer[p] == UInt8(ascii: "}") {
            end = p + 1
            return nil
        }
        let keyStart = p
        let (keyEnd, escaped) = Skip.string(buffer, from: keyStart)
        p = Skip.whitespace(buffer, from: keyEnd, limit: limit) + 1  // past the `:`
        p = Skip.whitespace(buffer, from: p, limit: limit)
        let member = PendingMember(key: (keyStart + 1)..<(keyEnd - 1), keyHasEscapes: escaped, valueStart: p, kind: Skip.kind(buffer[p]))
        pending = member
        return member
    }

    /// Skips the value of the member ``next()`` returned; returns the member.
    mutating func skip() -> MemberRef {
        guard let member = pending else { preconditionFailure("ObjectWalker: no member to skip") }
        let value = Skip.value(buffer, from: member.valueStart, limit: buffer.count)
        return resume(at: value.range.upperBound)
    }

    /// Continues after the value of the member ``next()`` returned, which ends at `valueEnd`;
    /// returns the member.
    @discardableResult
    mutating func resume(at valueEnd: Int) -> MemberRef {
        guard let member = pending else { preconditionFailure("ObjectWalker: no member to resume after") }
        pending = nil
        p = valueEnd
        return member.member(endingAt: valueEnd)
    }
}

/// The members of an object of a validated record, one after another (each value skipped), and
/// the object's end once they are all read.
package struct ObjectMembers: IteratorProtocol, Sequence {
    private var walker: ObjectWalker?

    /// The members of the object `value` (nothing when it is not an object).
    package init(_ buffer: UnsafeBufferPointer<UInt8>, _ value: ValueRef) {
        walker = value.kind == .object ? ObjectWalker(buffer, openingAt: value.range.lowerBound) : nil
    }

    /// The members of the object whose `{` is at `start`.
    init(_ buffer: UnsafeBufferPointer<UInt8>, openingAt start: Int) {
        walker = ObjectWalker(buffer, openingAt: start)
    }

    /// The next member, its value skipped; nil after the last.
    package mutating func next() -> MemberRef? {
        guard walker?.next() != nil else { return nil }
        return walker!.skip()
    }

    /// One past the closing brace, once every member was read.
    package var end: Int? { walker?.end }
}
