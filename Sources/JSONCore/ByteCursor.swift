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

    /// Writes `bytes`.
    @inlinable @inline(__always)
    package mutating func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { write($0) }
    }
}

extension Array where Element == UInt8 {
    /// Appends what `body` writes through a ``ByteCursor``: at most `maxCount` bytes (writing
    /// more traps). The array grows once; the unused room is then dropped.
    @inlinable
    package mutating func appendBytes(upTo maxCount: Int, _ body: (inout ByteCursor) -> Void) {
        guard maxCount > 0 else { return }
        let start = count
        // The room is zero-filled (copied from a zero block: one memcpy per block, where
        // `repeatElement` appends byte by byte), so every byte of the array stays initialized
        // whatever `body` writes; UInt8 is trivial, so writing through a pointer needs no
        // deinitialization.
        reserveCapacity(start + maxCount)
        var left = maxCount
        while left > 0 {
            let n = Swift.min(left, zeroBlockSize)
            append(contentsOf: UnsafeBufferPointer(start: zeroBlock, count: n))
            left -= n
        }
        let written = withUnsafeMutableBufferPointer { all in
            // `start..<start + maxCount` is the room just appended, inside `all`.
            var cursor = ByteCursor(UnsafeMutableBufferPointer(rebasing: all[start..<(start + maxCount)]))
            body(&cursor)
            return all.baseAddress!.distance(to: cursor.next) - start
        }
        removeLast(maxCount - written)
    }
}

/// Bytes that ``Swift/Array/appendBytes(upTo:_:)`` fills its room from.
@usableFromInline let zeroBlockSize = 64 * 1024

// Safe to share: allocated and zeroed once, never written after that and never freed.
@usableFromInline nonisolated(unsafe) let zeroBlock: UnsafePointer<UInt8> = {
    let p = UnsafeMutablePointer<UInt8>.allocate(capacity: zeroBlockSize)
    p.initialize(repeating: 0, count: zeroBlockSize)
    return UnsafePointer(p)
}()
