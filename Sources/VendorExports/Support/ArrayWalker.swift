import JSONCore

/// Walks the items of an array of a validated record in one pass, like ``ObjectWalker``: an item
/// is either skipped (``skip()``) or walked by the caller, who then ``resume(at:)``s after it.
struct ArrayWalker {
    private let buffer: UnsafeBufferPointer<UInt8>
    private var p: Int
    private var pendingStart: Int?
    /// One past the closing bracket, once the walk has reached it.
    private(set) var end: Int?

    /// A walk of the array whose `[` is at `start` of `buffer` (validated data).
    init(_ buffer: UnsafeBufferPointer<UInt8>, openingAt start: Int) {
        self.buffer = buffer
        p = start + 1
    }

    /// The next item's first byte and kind, the item not yet skipped; nil at the closing bracket.
    mutating func next() -> (start: Int, kind: JSONKind)? {
        precondition(pendingStart == nil, "ArrayWalker: skip or resume after each item")
        let limit = buffer.count
        p = Skip.whitespace(buffer, from: p, limit: limit)
        if buffer[p] == UInt8(ascii: ",") { p = Skip.whitespace(buffer, from: p + 1, limit: limit) }
        if buffer[p] == UInt8(ascii: "]") {
            end = p + 1
            return nil
        }
        pendingStart = p
        return (p, Skip.kind(buffer[p]))
    }

    /// Skips the item ``next()`` returned; returns it.
    mutating func skip() -> ValueRef {
        guard let start = pendingStart else { preconditionFailure("ArrayWalker: no item to skip") }
        let value = Skip.value(buffer, from: start, limit: buffer.count)
        resume(at: value.range.upperBound)
        return value
    }

    /// Continues after the item ``next()`` returned, which ends at `itemEnd`.
    mutating func resume(at itemEnd: Int) {
        pendingStart = nil
        p = itemEnd
    }
}

/// The items of an array of a validated record, one after another (each skipped).
package struct ArrayItems: IteratorProtocol, Sequence {
    private var walker: ArrayWalker

    /// The items of the array at `range` of `buffer`, which a validating scan has accepted.
    package init(_ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        walker = ArrayWalker(buffer, openingAt: range.lowerBound)
    }

    /// The next item, skipped; nil after the last.
    package mutating func next() -> ValueRef? {
        guard walker.next() != nil else { return nil }
        return walker.skip()
    }
}
