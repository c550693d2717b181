import Foundation
import JSONCore
@_spi(PerLine) import MetaRouter
import ReplayKit
import TestSupport
import Testing

/// The byte-keyed identity tables: keys and values of every length around the inline limits,
/// escapes, and enough keys to grow the table many times, in memory and through SQLite.
final class IdentityMapTests {
    let dir: String
    init() throws { dir = try makeTempDir() }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    /// Keys of 0...40 bytes, values of 0...40 bytes (so keys and JSON values are under, at and
    /// over ``InlineBytes/inlineCapacity``),
    /// values that need escapes, and ids that differ only past the 16th byte.
    func ids() -> [(key: String, value: String)] {
        var out: [(String, String)] = []
        for n in 0...40 {
            out.append((String(repeating: "k", count: n), "v" + String(repeating: "w", count: max(0, n - 1))))
            out.append((String(repeating: "k", count: 17) + "\(n)", "same-prefix-\(n)"))
        }
        out.append(("quote", #"a"b\c"#))
        out.append(("newline", "line\nbreak"))
        out.append(("ü-key", "東京"))
        out.append(("escaped-16", #"0123456789abc""#))
        // UUIDs (kept in 16 bytes when their letters are of one case), and the same UUID in
        // another case, which is another id.
        let uuids = [
            "f81d4fae-7dec-11d0-a765-00a0c91e6bf6", "F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6", "F81d4fae-7dec-11d0-a765-00a0c91e6bf6",
            "12345678-9012-3456-7890-123456789012", "f81d4fae_7dec_11d0_a765_00a0c91e6bf6", "{81d4fae-7dec-11d0-a765-00a0c91e6bf}",
        ]
        for (k, uuid) in uuids.enumerated() { out.append((uuid, uuids[(k + 1) % uuids.count])) }
        return out
    }

    @Test func everyLengthAndEscapeRoundTripsInMemoryAndThroughSQLite() throws {
        let a = try IdentityStore(stateDirectory: dir)
        for (i, id) in ids().enumerated() {
            a.learnUser(anonymousId: id.key, userId: id.value, sequence: UInt64(i + 1))
            a.learnGroup(userId: id.key, groupId: id.value + "-g", sequence: UInt64(i + 1))
        }
        for id in ids() {
            #expect(try a.userId(forAnonymousId: id.key) == id.value, "\(id.key)")
            #expect(try a.groupId(forUserId: id.key) == id.value + "-g", "\(id.key)")
            var key = id.key
            let json = try key.withUTF8 { try a.userIdValue(forAnonymousId: $0) }?.json
            #expect(json == JSONStrings.quoted(id.value), "the spliced value is the quoted id")
        }
        #expect(try a.userId(forAnonymousId: String(repeating: "k", count: 41)) == nil)
        try a.commitAll()
        a.close()

        let b = try IdentityStore(stateDirectory: dir)
        for id in ids() {
            #expect(try b.userId(forAnonymousId: id.key) == id.value, "\(id.key)")
            #expect(try b.groupId(forUserId: id.key) == id.value + "-g", "\(id.key)")
        }
        #expect(try b.userId(forAnonymousId: "never") == nil)
        b.close()
    }

    @Test func manyKeysAndEvictionsKeepTheNewestValues() throws {
        let a = try IdentityStore(stateDirectory: dir)
        a.setCacheLimit(1_000)
        for k in 0..<20_000 {
            a.learnUser(anonymousId: "anon-\(k % 7_000)", userId: "user-\(k)", sequence: UInt64(k + 1))
            if k % 3_000 == 2_999 { try a.commit(throughSequence: UInt64(k + 1 - 500)) }
        }
        for k in 13_000..<20_000 { #expect(try a.userId(forAnonymousId: "anon-\(k % 7_000)") == "user-\(k)") }
        #expect(try a.userId(forAnonymousId: "anon-7000") == nil)
        try a.commitAll()
        a.close()
        let b = try IdentityStore(stateDirectory: dir)
        for k in stride(from: 13_000, to: 20_000, by: 97) { #expect(try b.userId(forAnonymousId: "anon-\(k % 7_000)") == "user-\(k)") }
        b.close()
    }

    /// A commit marks its entry through the hint `learn` returned while the entry is there, and
    /// finds it by key once an eviction moved it (the hint then points at another key, or past
    /// the end); the values are the same either way.
    @Test func commitsFindTheirEntryAfterAnEvictionMovedIt() {
        var map = IdentityMap()
        map.limit = 1
        func with<R>(_ s: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R { Array(s.utf8).withUnsafeBufferPointer(body) }
        func learn(_ key: String, _ sequence: UInt64) -> Int {
            Int(with(key) { map.learn($0, IdentityValue(raw: Array("v-\(key)".utf8)), sequence: sequence) } ?? .max)
        }
        func commit(_ key: String, _ sequence: UInt64, hint: Int) { with(key) { map.markCommitted($0, sequence: sequence, entryHint: hint) } }

        commit("a", 1, hint: learn("a", 1))
        let b = learn("b", 2)  // evicts the committed "a"
        let c = learn("c", 3)
        commit("b", 2, hint: b)
        #expect(map.uncommittedCount == 1)
        let d = learn("d", 4)  // evicts the committed "b": "c" moves to "b"'s place, "d" takes "c"'s
        #expect(d == c, "the hint kept for c now points at d")
        commit("c", 3, hint: c)
        #expect(map.uncommittedCount == 1, "c is committed, d is not")
        commit("d", 4, hint: 99)  // past the end: found by key
        #expect(map.uncommittedCount == 0)
        commit("d", 4, hint: d)  // twice is harmless
        #expect(map.uncommittedCount == 0)
        for key in ["c", "d"] {
            guard case .value(let v) = with(key, { map.lookup($0) }) else {
                Issue.record("\(key) has no value")
                continue
            }
            #expect(v.json == JSONStrings.quoted("v-\(key)"))
        }
        #expect(with("a") { map.lookup($0) }.isUnknown, "evicted: SQLite is asked")
    }

    /// An id's spliced form is its quoted JSON string, whether it is quoted on the stack (up to
    /// a UUID's 36 bytes, nothing to escape) or escaped into an array: every one-byte id, the
    /// empty id, ids around the 14 bytes that fit inline with their quotes and around the 36 that
    /// are quoted on the stack, and UUIDs.
    @Test func identityValuesAreTheQuotedIds() {
        var ids: [[UInt8]] = [[]] + (0..<0x80).map { [UInt8($0)] }
        for n in [12, 13, 14, 15, 16, 17, 35, 36, 37] { ids.append(Array(repeating: UInt8(ascii: "i"), count: n)) }
        ids.append(Array("13-bytes-\"id!".utf8))
        ids += ["f81d4fae-7dec-11d0-a765-00a0c91e6bf6", "F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6", "f81d4fae-7dec-11d0-a765-00a0c91e6bf\""]
            .map { Array($0.utf8) }
        for id in ids {
            var expected: [UInt8] = []
            id.withUnsafeBufferPointer { JSONStrings.appendQuotedBytes($0, to: &expected) }
            #expect(IdentityValue(raw: id).json == expected, "\(id)")
        }
    }

    /// The sizes the layout comments claim.
    @Test func layoutsHaveTheirClaimedSizes() {
        #expect(MemoryLayout<InlineBytes>.size == 24)
        #expect(MemoryLayout<InlineBytes.Head>.size == 16)
        #expect(MemoryLayout<IdentityValue?>.size == 24, "an absent value costs no extra byte")
        #expect(MemoryLayout<IdentityMap.Entry>.stride == 56)
        #expect(MemoryLayout<LearnedRow>.size == 49)
        #expect(MemoryLayout<IdentityStore.Pending>.stride == 64)
        #expect(InlineBytes.uuidTextCount == UUIDText.count)
    }

    /// Byte strings of every length around the inline limit keep their bytes, and compare equal
    /// only to the same bytes.
    @Test(arguments: 0...40)
    func inlineBytesKeepAndCompareTheirBytes(count: Int) {
        let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 1) }
        var other = bytes
        if count > 0 { other[count - 1] ^= 1 }
        let zeroPadded = bytes + [0]
        bytes.withUnsafeBufferPointer { buf in
            let kept = InlineBytes(buf)
            #expect(kept.array == bytes)
            #expect(kept.matches(InlineBytes.probe(buf), buf))
            other.withUnsafeBufferPointer { #expect(kept.matches(InlineBytes.probe($0), $0) == (count == 0)) }
            // Zero padding is not a byte: one more zero is another string.
            zeroPadded.withUnsafeBufferPointer { #expect(!kept.matches(InlineBytes.probe($0), $0)) }
        }
    }

    /// UUID texts, quoted or not, in each case, and the texts around them (mixed case, no
    /// letters, a quote on one side only, one byte more or other than a dash): each keeps its
    /// bytes and matches only itself.
    @Test func uuidTextsKeepTheirBytesAndMatchOnlyThemselves() {
        let uuid = "f81d4fae-7dec-11d0-a765-00a0c91e6bf6"
        var texts = [uuid, uuid.uppercased(), "F" + uuid.dropFirst(), "12345678-9012-3456-7890-123456789012", uuid + "0"]
        texts += texts.map { "\"\($0)\"" }
        texts += ["\"" + uuid, uuid + "\"", uuid.replacingOccurrences(of: "-", with: "_"), String(uuid.dropLast()) + "g"]
        let all = texts.map { Array($0.utf8) }
        for (k, bytes) in all.enumerated() {
            bytes.withUnsafeBufferPointer { buf in
                let kept = InlineBytes(buf)
                #expect(kept.array == bytes, "\(texts[k])")
                for (j, other) in all.enumerated() {
                    other.withUnsafeBufferPointer { #expect(kept.matches(InlineBytes.probe($0), $0) == (j == k), "\(texts[k]) ~ \(texts[j])") }
                    other.withUnsafeBufferPointer { #expect((kept == InlineBytes($0)) == (j == k)) }
                }
            }
        }
        // What an identity value splices: the quoted id, whichever way it is kept.
        for text in texts.prefix(5) { #expect(IdentityValue(raw: Array(text.utf8)).json == Array("\"\(text)\"".utf8)) }
    }
}

extension IdentityMap.Lookup {
    fileprivate var isUnknown: Bool {
        if case .unknown = self { return true }
        return false
    }
}
