import Foundation
import JSONCore
@_spi(PerLine) import MetaRouter
import Testing

@testable import ReplayKit

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
}
