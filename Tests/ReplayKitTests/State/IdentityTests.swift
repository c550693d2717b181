import Foundation
import JSONCore
import ReplayKit
import TestSupport
import Testing

final class IdentityTests {
    let dir: String
    init() throws { dir = try makeTempDir() }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    let t = "\"timestamp\":\"2024-01-01T00:00:00Z\""

    @Test func carryForwardWithinRunAndAcrossRuns() throws {
        let config = try testConfig(stateDir: dir)
        do {
            let store = try IdentityStore(stateDirectory: dir)
            let e = Enricher(config: config, identity: store)
            _ = try eventObject(enrich(e, "{\"type\":\"identify\",\"anonymousId\":\"A\",\"userId\":\"U\",\(t)}", sequence: 1))
            _ = try eventObject(enrich(e, "{\"type\":\"group\",\"anonymousId\":\"A\",\"groupId\":\"G\",\(t)}", sequence: 2))
            let later = try eventObject(enrich(e, "{\"type\":\"track\",\"event\":\"E\",\"anonymousId\":\"A\",\(t)}", sequence: 3))
            #expect(later["userId"] == .string("U"))
            #expect(later["groupId"] == .string("G"))
            try store.commitAll()
            store.close()
        }
        let store = try IdentityStore(stateDirectory: dir)
        let e = Enricher(config: config, identity: store)
        let next = try eventObject(enrich(e, "{\"type\":\"screen\",\"anonymousId\":\"A\",\(t)}", sequence: 1))
        #expect(next["userId"] == .string("U"))
        #expect(next["groupId"] == .string("G"))
        // Another anonymousId of the same user only gets the user's group when it has that userId.
        let other = try eventObject(enrich(e, "{\"type\":\"screen\",\"anonymousId\":\"B\",\"userId\":\"U\",\(t)}", sequence: 2))
        #expect(other["groupId"] == .string("G"))
        #expect(e.stats.userIdsCarried == 1)
    }

    @Test func neverBorrowsFromADifferentAnonymousId() throws {
        let e = Enricher(config: try testConfig(), identity: try IdentityStore(stateDirectory: nil))
        _ = try eventObject(enrich(e, "{\"type\":\"identify\",\"anonymousId\":\"A\",\"userId\":\"U\",\(t)}"))
        _ = try eventObject(enrich(e, "{\"type\":\"group\",\"anonymousId\":\"A\",\"userId\":\"U\",\"groupId\":\"G\",\(t)}"))
        let b = try eventObject(enrich(e, "{\"type\":\"track\",\"event\":\"E\",\"anonymousId\":\"B\",\(t)}"))
        #expect(b["userId"] == nil)
        #expect(b["groupId"] == nil)
        // Explicit values always win over remembered ones.
        let own = try eventObject(enrich(e, "{\"type\":\"track\",\"event\":\"E\",\"anonymousId\":\"A\",\"userId\":\"V\",\"groupId\":\"H\",\(t)}"))
        #expect(own["userId"] == .string("V"))
        #expect(own["groupId"] == .string("H"))
    }

    @Test func numericIdsAreKept() throws {
        let e = Enricher(config: try testConfig(), identity: try IdentityStore(stateDirectory: nil))
        _ = try eventObject(enrich(e, "{\"type\":\"identify\",\"anonymousId\":42,\"userId\":7,\(t)}"))
        let obj = try eventObject(enrich(e, "{\"type\":\"page\",\"anonymousId\":42,\(t)}"))
        #expect(obj["anonymousId"] == .number(JSONNumber(42)))
        #expect(obj["userId"] == .string("7"))
    }

    @Test func rejectedLinesTeachNothing() throws {
        let e = Enricher(config: try testConfig(), identity: try IdentityStore(stateDirectory: nil))
        #expect(reason(enrich(e, "{\"type\":\"identify\",\"anonymousId\":\"A\",\"userId\":\"U\",\(t),\"context\":{\"os\":1}}")) == "invalid_context")
        #expect(try eventObject(enrich(e, "{\"type\":\"page\",\"anonymousId\":\"A\",\(t)}"))["userId"] == nil)
    }

    @Test func aliasTeachesUserId() throws {
        let e = Enricher(config: try testConfig(), identity: try IdentityStore(stateDirectory: nil))
        _ = try eventObject(enrich(e, "{\"type\":\"alias\",\"anonymousId\":\"A\",\"userId\":\"NEW\",\"previousId\":\"A\",\(t)}"))
        #expect(try eventObject(enrich(e, "{\"type\":\"page\",\"anonymousId\":\"A\",\(t)}"))["userId"] == .string("NEW"))
    }

    @Test func overlayIsOnlyPersistedThroughCommittedSequence() throws {
        do {
            let store = try IdentityStore(stateDirectory: dir)
            store.learnUser(anonymousId: "A", userId: "U1", sequence: 10)
            store.learnUser(anonymousId: "B", userId: "U2", sequence: 20)
            store.learnGroup(userId: "U2", groupId: "G", sequence: 30)
            #expect(try store.userId(forAnonymousId: "B") == "U2")
            try store.commit(throughSequence: 15)
            #expect(store.uncommittedCount == 2)
            store.close()  // "crash": the rest is lost
        }
        let store = try IdentityStore(stateDirectory: dir)
        #expect(try store.userId(forAnonymousId: "A") == "U1")
        #expect(try store.userId(forAnonymousId: "B") == nil)
        #expect(try store.groupId(forUserId: "U2") == nil)
    }

    @Test func reEnrichmentAfterCrashGivesIdenticalOutput() throws {
        let lines = [
            "{\"type\":\"identify\",\"anonymousId\":\"A\",\"userId\":\"U\",\(t)}",
            "{\"type\":\"track\",\"event\":\"E1\",\"anonymousId\":\"A\",\(t)}",
            "{\"type\":\"identify\",\"anonymousId\":\"A\",\"userId\":\"U2\",\(t)}",
            "{\"type\":\"track\",\"event\":\"E2\",\"anonymousId\":\"A\",\(t)}",
        ]
        let config = try testConfig(stateDir: dir)
        var first: [EnrichResult] = []
        do {
            let store = try IdentityStore(stateDirectory: dir)
            let e = Enricher(config: config, identity: store)
            for (i, l) in lines.enumerated() { first.append(enrich(e, l, lineNumber: i + 1, sequence: UInt64(i + 1))) }
            try store.commit(throughSequence: 2)  // checkpoint after line 2, then kill -9
            store.close()
        }
        let store = try IdentityStore(stateDirectory: dir)
        let e = Enricher(config: config, identity: store)
        for i in 2..<4 {
            #expect(enrich(e, lines[i], lineNumber: i + 1, sequence: UInt64(i + 1)) == first[i])
        }
    }

    /// Apps identify the same user on every launch: a mapping the store holds already, learned
    /// earlier in the run or read from SQLite, is not written again; a changed one is, and a
    /// crash before its commit leaves the committed value.
    @Test func anUnchangedMappingIsNotWrittenAgain() throws {
        do {
            let store = try IdentityStore(stateDirectory: dir)
            store.learnUser(anonymousId: "A", userId: "U", sequence: 1)
            store.learnUser(anonymousId: "A", userId: "U", sequence: 2)
            store.learnGroup(userId: "U", groupId: "G", sequence: 3)
            store.learnGroup(userId: "U", groupId: "G", sequence: 4)
            #expect(store.uncommittedCount == 2, "one row per mapping, not per line")
            try store.commitAll()
            store.close()
        }
        let store = try IdentityStore(stateDirectory: dir)
        #expect(try store.userId(forAnonymousId: "A") == "U")  // read from SQLite and kept
        store.learnUser(anonymousId: "A", userId: "U", sequence: 10)
        store.learnGroup(userId: "U", groupId: "G", sequence: 11)  // not looked up first: written
        #expect(store.uncommittedCount == 1)
        store.learnUser(anonymousId: "A", userId: "U2", sequence: 12)
        store.learnUser(anonymousId: "A", userId: "U", sequence: 13)  // back: a change again
        #expect(store.uncommittedCount == 3)
        #expect(try store.userId(forAnonymousId: "A") == "U")
        try store.commit(throughSequence: 12)
        store.close()  // crash: line 13's row is lost, line 12's is in
        let reopened = try IdentityStore(stateDirectory: dir)
        #expect(try reopened.userId(forAnonymousId: "A") == "U2")
        #expect(try reopened.groupId(forUserId: "U") == "G")
        reopened.close()
    }

    /// A scratch store (a dry run's copy) commits and reads back like any store, but keeps no
    /// journal: no journal file is written, where a durable store has its WAL.
    @Test func aScratchStoreCommitsWithoutAJournalFile() throws {
        let durable = try IdentityStore(stateDirectory: dir + "/durable")
        let scratch = try IdentityStore(stateDirectory: dir + "/scratch", scratch: true)
        for store in [durable, scratch] {
            store.learnUser(anonymousId: "A", userId: "U", sequence: 1)
            try store.commitAll()
        }
        #expect(FileManager.default.fileExists(atPath: dir + "/durable/identity.sqlite-wal"))
        let files = try FileManager.default.contentsOfDirectory(atPath: dir + "/scratch")
        #expect(files == ["identity.sqlite"])
        durable.close()
        scratch.close()
        let reopened = try IdentityStore(stateDirectory: dir + "/scratch", scratch: true)
        #expect(try reopened.userId(forAnonymousId: "A") == "U")
        reopened.close()
    }

    /// An identity store that SQLite cannot open at all (its path is a directory) is reported
    /// with that path, and the failed handle is closed once: `deinit` runs after a throwing
    /// `init` too, and used to close it a second time.
    @Test func aStoreSQLiteCannotOpenIsNamedByItsPath() throws {
        let path = dir + "/identity.sqlite"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        do {
            _ = try IdentityStore(stateDirectory: dir)
            Issue.record("a directory was opened as a database")
        } catch {
            #expect("\(error)".contains(path), "\(error)")
        }
    }

    /// An identity store that SQLite cannot read is reported with its file's path, so a person
    /// knows which state directory to look at.
    @Test func aStoreSQLiteCannotReadIsNamedByItsPath() throws {
        let path = dir + "/identity.sqlite"
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        do {
            _ = try IdentityStore(stateDirectory: dir)
            Issue.record("a file that is not a database was opened")
        } catch {
            #expect("\(error)".contains(path), "\(error)")
        }
    }
}
