import Foundation

/// An identity (anonymousId or userId) compared and hashed by its UTF-8 bytes.
///
/// Swift's `String` equality is canonical equivalence: `"caf\u{e9}"` and `"cafe\u{301}"` are
/// equal Strings, while SQLite's `TEXT PRIMARY KEY` keeps them as two different ids. In-memory
/// maps and commit de-duplication use this key so they agree with SQLite byte for byte, and the
/// order below is SQLite's default (BINARY) collation.
struct IdentityKey: Hashable, Comparable {
    let string: String

    init(_ string: String) { self.string = string }

    static func == (a: IdentityKey, b: IdentityKey) -> Bool {
        compare(a, b) == 0
    }

    static func < (a: IdentityKey, b: IdentityKey) -> Bool {
        compare(a, b) < 0
    }

    func hash(into hasher: inout Hasher) {
        let done: Void? = string.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if done == nil { Array(string.utf8).withUnsafeBytes { hasher.combine(bytes: $0) } }
    }

    /// memcmp order of the UTF-8 bytes, shorter first on a common prefix.
    static func compare(_ a: IdentityKey, _ b: IdentityKey) -> Int {
        let x = a.string.utf8, y = b.string.utf8
        let result: Int? = x.withContiguousStorageIfAvailable { px in
            y.withContiguousStorageIfAvailable { py in
                let n = min(px.count, py.count)
                let c = n == 0 ? 0 : Int(memcmp(px.baseAddress!, py.baseAddress!, n))
                return c != 0 ? c : px.count - py.count
            }
        } ?? nil
        if let result { return result }
        if x.elementsEqual(y) { return 0 }
        return x.lexicographicallyPrecedes(y) ? -1 : 1
    }
}
