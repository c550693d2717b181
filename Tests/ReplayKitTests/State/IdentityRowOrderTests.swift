import ReplayKit
import TestSupport
import Testing

/// The order an identity commit writes its rows in: the last row of each key, keys in byte order.
struct IdentityRowOrderTests {
    /// Rows whose keys are kept the way the store keeps them (``InlineBytes``).
    struct Rows: KeyedIdentityRows {
        let keys: [InlineBytes]
        func withKey<R>(at position: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
            try keys[position].withBytes(body)
        }
    }

    /// Keys of every kind, many repeated: short ones, UUIDs in each case (kept in 16 bytes),
    /// long keys that share their first 16 bytes and differ after them, and prefixes of each other.
    static func keys(count: Int) -> [[UInt8]] {
        var rng = SeededRandom(seed: 0x5EED)
        let uuid = "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"
        var pool: [String] = ["", "a", "ab", "a\u{0}", "user-1", String(repeating: "k", count: 16), String(repeating: "k", count: 17)]
        pool += [uuid, uuid.uppercased(), "F" + uuid.dropFirst(), "f81d4fae-7dec-11d0-a765-00a0c91e6bf7", "f81d4fae-7dec-11d1"]
        pool += (0..<20).map { "shared-prefix-16-\($0)" } + (0..<20).map { "shared-prefix-16-\($0)-longer" }
        pool += (0..<40).map { _ in Self.uuidText(rng.next(), rng.next(), uppercase: (rng.next() as UInt64) & 1 == 1) }
        return (0..<count).map { _ in Array(pool[Int(rng.next() % UInt64(pool.count))].utf8) }
    }

    static func uuidText(_ a: UInt64, _ b: UInt64, uppercase: Bool) -> String {
        let hex = String(a, radix: 16).leftPadded(16) + String(b, radix: 16).leftPadded(16)
        let chars = Array(uppercase ? hex.uppercased() : hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(chars[$0]) }.joined(separator: "-")
    }

    /// The last position of each key among `positions`: keys of up to 16 bytes first, then the
    /// longer ones, each in byte order.
    static func expected(_ keys: [[UInt8]], _ positions: some Sequence<Int>) -> [Int] {
        var last: [[UInt8]: Int] = [:]
        for position in positions { last[keys[position]] = position }
        return last.sorted { a, b in
            (a.key.count > 16) != (b.key.count > 16) ? b.key.count > 16 : a.key.lexicographicallyPrecedes(b.key)
        }.map(\.value)
    }

    @Test func lastRowOfEachKeyInByteOrder() {
        let keys = Self.keys(count: 5_000)
        let rows = Rows(keys: keys.map { bytes in bytes.withUnsafeBufferPointer { InlineBytes($0) } })
        #expect(IdentityRowOrder.lastOfEachKey(rows, keys.indices) == Self.expected(keys, keys.indices))
        // Only some positions (as a commit takes those of one table).
        let odd = keys.indices.filter { $0 % 2 == 1 }
        #expect(IdentityRowOrder.lastOfEachKey(rows, odd) == Self.expected(keys, odd))
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
