import Foundation
@_spi(PerLine) import MetaRouterDelivery

/// Rows of one identity table whose keys can be read by position: the store's log of learned
/// mappings, or the entries of an ``IdentityMap``.
package protocol KeyedIdentityRows {
    /// Calls `body` with the key bytes of the row at `position`.
    func withKey<R>(at position: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R
}

/// The order an identity commit writes its rows in.
///
/// Only the last row of each key is written, and keys go in byte order (those of up to 16 bytes
/// first, then the longer ones, see ``lastOfEachKey(_:_:)``): the table ends up exactly
/// as if every row were applied in learning order, but neighbouring keys share B-tree pages, so
/// SQLite reads and dirties far fewer pages than with keys in the random order identities arrive
/// in (about 10 % of a dry run's time at 1M events). Keys are compared as bytes, as SQLite's
/// BINARY collation compares them.
package enum IdentityRowOrder {
    /// The rows of `positions` (in learning order) to write, in the order to write them: the
    /// last row of each key, by key.
    ///
    /// Keys of up to 16 bytes sort as two big-endian words, which is memcmp order on the
    /// zero-padded key, the shorter first on a common prefix; longer keys (never equal to a short
    /// one) sort after them, by their first 16 bytes as words too, and with memcmp only when
    /// those are equal (a UUID key is kept in 16 bytes, and reading its text back costs a write).
    /// No allocation per row.
    package static func lastOfEachKey(_ rows: some KeyedIdentityRows, _ positions: some Sequence<Int>) -> [Int] {
        var short: [(hi: UInt64, lo: UInt64, length: Int, position: Int)] = []
        var long: [(hi: UInt64, lo: UInt64, position: Int)] = []
        for i in positions {
            rows.withKey(at: i) { key in
                let w = ByteWords.first16(key)
                let (hi, lo) = (UInt64(bigEndian: w.0), UInt64(bigEndian: w.1))
                if key.count <= 16 { short.append((hi, lo, key.count, i)) } else { long.append((hi, lo, i)) }
            }
        }
        short.sort { ($0.hi, $0.lo, $0.length, $0.position) < ($1.hi, $1.lo, $1.length, $1.position) }
        var order: [Int] = []
        order.reserveCapacity(short.count + long.count)
        for (k, s) in short.enumerated() {
            if k + 1 < short.count, short[k + 1].hi == s.hi, short[k + 1].lo == s.lo, short[k + 1].length == s.length { continue }
            order.append(s.position)
        }
        long.sort { a, b in
            guard (a.hi, a.lo) == (b.hi, b.lo) else { return (a.hi, a.lo) < (b.hi, b.lo) }
            let c = compare(rows, a.position, b.position)
            return c != 0 ? c < 0 : a.position < b.position
        }
        for (k, l) in long.enumerated() {
            if k + 1 < long.count, (long[k + 1].hi, long[k + 1].lo) == (l.hi, l.lo), compare(rows, long[k + 1].position, l.position) == 0 {
                continue
            }
            order.append(l.position)
        }
        return order
    }

    /// memcmp order of two rows' keys, the shorter first on a common prefix.
    private static func compare(_ rows: some KeyedIdentityRows, _ a: Int, _ b: Int) -> Int {
        rows.withKey(at: a) { x in
            rows.withKey(at: b) { y in
                let n = min(x.count, y.count)
                // n > 0 bytes exist in both buffers (so both have base addresses).
                let c = n == 0 ? 0 : Int(memcmp(x.baseAddress!, y.baseAddress!, n))
                return c != 0 ? c : x.count - y.count
            }
        }
    }
}
