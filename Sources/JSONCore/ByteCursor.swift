import Foundation

/// Writes bytes one after another into room reserved in advance, without a capacity check or
/// a uniqueness check per write: what the per-line render loops use instead of many small
/// `Array.append` calls. Made only by ``Swift/Array/appendBytes(upTo:_:)``.
@usableFromInline
package struct ByteCursor: ~Copyable {
    /// Where the next byte goes.
    @usableFromInline var next: UnsafeMutablePointer<UInt8>
    /// One past the last byte that may be written.
    @usableFromInline let limit: UnsafeMutablePointer<UInt8>

    @usableFromInline init(_ room: UnsafeMutableBufferPointer<UInt8>) {
        // `room` is non-empty (checked by the caller), so it has a base address.
        next = room.baseAddress!
        limit = room.baseAddress! + room.count
    }

    /// Writes one byte.
    @inlinable @inline(__always)
    package mutating func write(_ byte: UInt8) {
        // The rule that keeps every write inside the reserved room: no byte is written at or
        // past `limit`. A caller that reserved too little traps here, before writing.
        precondition(next < limit, "ByteCursor: more bytes written than reserved")
        next.pointee = byte
        next += 1
    }

    /// Writes `bytes`.
    @inlinable @inline(__always)
    package mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        // Same rule: the copy ends at or before `limit`. `source` holds `bytes.count` bytes.
        precondition(limit - next >= bytes.count, "ByteCursor: more bytes written than reserved")
        next.update(from: source, count: bytes.count)
        next += bytes.count
    }

    /// Lets `body` write exactly `count` bytes at the cursor, then moves past them.
    @inlinable @inline(__always)
    package mutating func write(count: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Void) {
        // Same rule: the `count` bytes `body` writes end at or before `limit`.
        precondition(limit - next >= count, "ByteCursor: more bytes written than reserved")
        body(next)
        next += count
    }

    /// Writes `bytes`.
    @inlinable @inline(__always)
    package mutating func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { write($0) }
    }
}

extension Array where Element == UInt8 {
    /// Appends what `body` writes through a ``ByteCursor``: at most `maxCount` bytes (writing
    /// more traps). They are written straight into the array's room after its last element
    /// (grown as an append grows it), and the array's count then grows by exactly what was
    /// written: no copy, and no byte written twice.
    @inlinable
    package mutating func appendBytes(upTo maxCount: Int, _ body: (inout ByteCursor) -> Void) {
        guard maxCount > 0 else { return }
        append(addingCapacity: maxCount) { span in
            span.withUnsafeMutableBufferPointer { room, initialized in
                // `room` is the span's memory, `maxCount` bytes after the array's elements, none
                // of them initialized yet. The cursor writes only inside `room` (its rule);
                // UInt8 is trivial, so a byte written there is initialized by the write, and
                // exactly the bytes written (from the start of `room` to the cursor) are
                // declared initialized.
                var cursor = ByteCursor(room)
                body(&cursor)
                initialized = room.baseAddress!.distance(to: cursor.next)
            }
        }
    }
}
