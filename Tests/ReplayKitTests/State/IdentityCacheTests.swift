import Foundation
import JSONCore
@_spi(PerLine) import MetaRouter
import ReplayKit
import TestSupport
import Testing

/// The identity store answers misses from memory only while its cache is provably complete.
final class IdentityCacheTests {
    let dir: String
    init() throws { dir = try makeTempDir() }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    @Test func evictedAndPreexistingRowsAreStillFoundInSQLite() throws {
        let a = try IdentityStore(stateDirectory: dir)
        a.setCacheLimit(2)
        for k in 1...5 { a.learnUser(anonymousId: "a\(k)", userId: "u\(k)", sequence: UInt64(k)) }
        a.learnGroup(userId: "u1", groupId: "g1", sequence: 6)
        try a.commitAll()
        #expect(a.uncommittedCount == 0)
        for k in 1...5 { #expect(try a.userId(forAnonymousId: "a\(k)") == "u\(k)") }
        #expect(try a.userId(forAnonymousId: "nobody") == nil)
        #expect(try a.groupId(forUserId: "u1") == "g1")
        a.close()

        let b = try IdentityStore(stateDirectory: dir)
        #expect(try b.userId(forAnonymousId: "a3") == "u3")
        #expect(try b.groupId(forUserId: "u1") == "g1")
        #expect(try b.groupId(forUserId: "u2") == nil)
        try b.forgetLearnedIdentities()
        #expect(try b.userId(forAnonymousId: "a3") == nil)
        b.learnUser(anonymousId: "a9", userId: "u9", sequence: 1)
        try b.commitAll()
        #expect(try b.userId(forAnonymousId: "a9") == "u9")
        b.close()
    }

    /// Commits write keys in sorted order with duplicates collapsed; the tables must still end
    /// up as if every mapping were applied in learning order.
    @Test func sortedCommitKeepsTheLastValueLearned() throws {
        let a = try IdentityStore(stateDirectory: dir)
        let keys = ["z", "a", "m", "a", "z", "b", "a"]
        for (i, k) in keys.enumerated() { a.learnUser(anonymousId: k, userId: "\(k)\(i)", sequence: UInt64(i + 1)) }
        a.learnGroup(userId: "u", groupId: "g1", sequence: 8)
        a.learnGroup(userId: "u", groupId: "g2", sequence: 9)
        try a.commit(throughSequence: 5)  // a→a3, z→z4, m→m2 are committed; b5 and a6 are not
        #expect(try a.userId(forAnonymousId: "a") == "a6")  // memory has the newest value
        #expect(a.uncommittedCount == 4)
        a.close()  // crash: the uncommitted rest is lost

        let b = try IdentityStore(stateDirectory: dir)
        #expect(try b.userId(forAnonymousId: "a") == "a3")
        #expect(try b.userId(forAnonymousId: "z") == "z4")
        #expect(try b.userId(forAnonymousId: "m") == "m2")
        #expect(try b.userId(forAnonymousId: "b") == nil)
        #expect(try b.groupId(forUserId: "u") == nil)
        for (i, k) in keys.enumerated() { b.learnUser(anonymousId: k, userId: "\(k)\(i)", sequence: UInt64(i + 1)) }
        b.learnGroup(userId: "u", groupId: "g1", sequence: 8)
        b.learnGroup(userId: "u", groupId: "g2", sequence: 9)
        try b.commitAll()
        b.close()

        let c = try IdentityStore(stateDirectory: dir)
        #expect(try c.userId(forAnonymousId: "a") == "a6")
        #expect(try c.userId(forAnonymousId: "b") == "b5")
        #expect(try c.groupId(forUserId: "u") == "g2")
        c.close()
    }

    /// Ids that are canonically equivalent but different bytes ("café" as NFC and as NFD) are two
    /// ids, in memory and in SQLite alike (Swift's String equality would merge them).
    @Test func idsAreComparedAsBytes() throws {
        let nfc = "caf\u{e9}", nfd = "cafe\u{301}"
        #expect(nfc == nfd)  // what a String-keyed map would do
        let a = try IdentityStore(stateDirectory: dir)
        a.learnUser(anonymousId: nfc, userId: "u1", sequence: 1)
        a.learnUser(anonymousId: nfd, userId: "u2", sequence: 2)
        #expect(try a.userId(forAnonymousId: nfc) == "u1")
        #expect(try a.userId(forAnonymousId: nfd) == "u2")
        try a.commitAll()
        a.close()
        let b = try IdentityStore(stateDirectory: dir)
        #expect(try b.userId(forAnonymousId: nfc) == "u1")
        #expect(try b.userId(forAnonymousId: nfd) == "u2")
        b.close()
    }

    /// A full map evicts only committed entries: uncommitted ones exist nowhere else.
    @Test func evictionKeepsUncommittedMappings() throws {
        let a = try IdentityStore(stateDirectory: dir)
        a.setCacheLimit(4)
        for k in 1...3 { a.learnUser(anonymousId: "c\(k)", userId: "u\(k)", sequence: UInt64(k)) }
        try a.commitAll()
        for k in 4...9 { a.learnUser(anonymousId: "c\(k)", userId: "u\(k)", sequence: UInt64(k)) }
        // Memory was full several times; every mapping is still found (committed ones in SQLite).
        for k in 1...9 { #expect(try a.userId(forAnonymousId: "c\(k)") == "u\(k)", "c\(k)") }
        #expect(try a.userId(forAnonymousId: "c10") == nil)
        #expect(a.uncommittedCount == 6)
        try a.commitAll()
        a.close()
        let b = try IdentityStore(stateDirectory: dir)
        for k in 1...9 { #expect(try b.userId(forAnonymousId: "c\(k)") == "u\(k)") }
        b.close()
    }

    /// A scratch store (a dry run's copy, which keeps no log and commits its maps' uncommitted
    /// entries) answers every lookup, and ends up with the same tables, as a durable store given
    /// the same mappings, logouts and commits: with a tiny cache (evictions, SQLite reads),
    /// rows that existed before, keys learned many times between commits, long keys and keys
    /// with escapes.
    @Test func aScratchStoreAnswersAndStoresLikeADurableOne() throws {
        let seed = try IdentityStore(stateDirectory: dir + "/seed")
        let anonymous = (0..<24).map { $0 % 5 == 0 ? "an anonymousId longer than sixteen bytes \($0)" : "a\"\\\($0)" }
        let users = (0..<12).map { $0 % 4 == 0 ? "a userId longer than sixteen bytes \($0)" : "u\u{e9}\"\($0)" }
        for k in 0..<8 { seed.learnUser(anonymousId: anonymous[k * 3], userId: users[k], sequence: UInt64(k + 1)) }
        seed.learnGroup(userId: users[1], groupId: "g-before", sequence: 9)
        try seed.commitAll()
        try seed.copy(toDirectory: dir + "/durable")
        try seed.copy(toDirectory: dir + "/scratch")
        seed.close()

        let durable = try IdentityStore(stateDirectory: dir + "/durable")
        let scratch = try IdentityStore(stateDirectory: dir + "/scratch", scratch: true)
        var random = UInt64(20_261_126)
        func next(_ n: Int) -> Int {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((random >> 33) % UInt64(n))
        }
        for store in [durable, scratch] { store.setCacheLimit(3) }
        for step in 1...600 {
            let sequence = UInt64(100 + step)
            let (a, u, g) = (anonymous[next(anonymous.count)], users[next(users.count)], "g\(next(4))")
            switch next(6) {
            case 0, 1: for store in [durable, scratch] { store.learnUser(anonymousId: a, userId: u, sequence: sequence) }
            case 2: for store in [durable, scratch] { store.forgetUser(anonymousId: a, sequence: sequence) }
            case 3: for store in [durable, scratch] { store.learnGroup(userId: u, groupId: g, sequence: sequence) }
            default:
                let users = (try scratch.userId(forAnonymousId: a), try durable.userId(forAnonymousId: a))
                #expect(users.0 == users.1, "step \(step): \(a)")
                let groups = (try scratch.groupId(forUserId: u), try durable.groupId(forUserId: u))
                #expect(groups.0 == groups.1, "step \(step): \(u)")
            }
            if step % 50 == 0 { for store in [durable, scratch] { try store.commit(throughSequence: sequence) } }
            if step % 50 == 0 { #expect(scratch.uncommittedCount == 0) }
        }
        for store in [durable, scratch] {
            try store.commitAll()
            store.close()
        }
        let (d, s) = (try IdentityStore(stateDirectory: dir + "/durable"), try IdentityStore(stateDirectory: dir + "/scratch"))
        for a in anonymous { #expect(try s.userId(forAnonymousId: a) == d.userId(forAnonymousId: a), "\(a)") }
        for u in users { #expect(try s.groupId(forUserId: u) == d.groupId(forUserId: u), "\(u)") }
        #expect(try anonymous.contains { try d.userId(forAnonymousId: $0) != nil })
        d.close()
        s.close()
    }

    /// A dry run commits its scratch store only when memory would grow past the store's bound:
    /// 65,536 uncommitted keys and a map as large as its cache. Below the cache size nothing is
    /// written however much is learned.
    @Test func aScratchStoreCommitIsDueOnlyAtItsMemoryBound() throws {
        let scratch = try IdentityStore(stateDirectory: dir + "/scratch", scratch: true)
        scratch.setCacheLimit(100_000)
        for k in 0..<70_000 { scratch.learnUser(anonymousId: "a\(k)", userId: "u\(k % 7)", sequence: UInt64(k + 1)) }
        #expect(scratch.uncommittedCount == 70_000)
        #expect(!scratch.isScratchCommitDue)  // 70,000 entries: within the cache's 100,000
        scratch.setCacheLimit(60_000)
        #expect(scratch.isScratchCommitDue)
        try scratch.commit(throughSequence: 70_000)
        #expect(scratch.uncommittedCount == 0)
        #expect(!scratch.isScratchCommitDue)
        #expect(try scratch.userId(forAnonymousId: "a69999") == "u6")
        scratch.close()
    }
}
