import Foundation
import JSONCore
@_spi(PerLine) import MetaRouter
import MetaRouterTesting
import Synchronization
import Testing

/// A store that can fail ("crash") on a chosen write and records every value written.
final class CrashingStorage: KeyValueStorage {
    struct Crash: Error {}
    private struct State {
        var values: [String: String] = [:]
        var writes: [(key: String, value: String?)] = []
        var failWrites = false
    }

    private let state = Mutex(State())

    /// Every write that succeeded, in order.
    var writes: [(key: String, value: String?)] { state.withLock { $0.writes } }
    /// While true, every write fails and changes nothing (the process "crashes" during it).
    var failWrites: Bool {
        get { state.withLock { $0.failWrites } }
        set { state.withLock { $0.failWrites = newValue } }
    }

    func string(forKey key: String) -> String? { state.withLock { $0.values[key] } }

    func set(_ value: String?, forKey key: String) throws {
        try state.withLock { s in
            if s.failWrites { throw Crash() }
            s.values[key] = value
            s.writes.append((key, value))
        }
    }
}

/// IDSync transitions (`login`, `logout`, `modify`) through the client and their persistence.
@Suite struct ClientTransitionTests {
    static func traits(_ e: JSONObject) -> JSONObject? { e["traits"]?.objectValue }
    static func contextTraits(_ e: JSONObject) -> JSONObject? { e["context"]?.objectValue?["traits"]?.objectValue }

    @Test func loginLogoutLoginAsSomeoneElseAndModify() async throws {
        let transport = ScriptedTransport()
        let client = try MetaRouterClient(options: clientOptions(), transport: transport, clock: TestClock())
        await startRunning(client)
        let firstAnonymous = await client.anonymousId
        await client.track("Browsing")
        try await client.login(
            UserIdentities(
                customerId: "cust-1", email: "ann@example.com", mobileNumber: "+4915100000001",
                other: ["crm_id": "crm-77"], traits: ["plan": "pro"]))
        await client.group("team-1")
        await client.track("Bought")
        try await client.modify(UserIdentities(email: "ann@new.example.com"), removing: ["phone"])
        await client.track("Changed Email")
        try await client.logout()
        let secondAnonymous = await client.anonymousId
        await client.track("Logged Out Browsing")
        try await client.login(UserIdentities(customerId: "cust-2", email: "bob@example.com"))
        try await client.login(UserIdentities(customerId: "cust-3"))
        await client.track("Third User")
        await client.drain()

        let e = transport.events
        #expect(
            e.map { $0["type"]?.stringValue ?? "" } == [
                "track", "alias", "identify", "group", "track", "identify", "track",
                "track", "alias", "identify", "identify", "track",
            ])
        // Anonymous → cust-1: alias of the anonymous id, identify with the typed identities.
        #expect(e[1]["anonymousId"]?.stringValue == firstAnonymous && e[1]["previousId"] == nil, "the SDKs' alias shape")
        #expect(e[1]["userId"]?.stringValue == "cust-1")
        #expect(Self.traits(e[2]) == ["plan": "pro", "crm_id": "crm-77", "email": "ann@example.com", "phone": "+4915100000001"])
        #expect(e[4]["userId"]?.stringValue == "cust-1")
        #expect(e[4]["groupId"]?.stringValue == "team-1")
        #expect(Self.contextTraits(e[4])?["email"] == "ann@example.com")
        // modify: same user, new email, phone removed.
        #expect(e[5]["userId"]?.stringValue == "cust-1")
        #expect(Self.traits(e[5]) == ["plan": "pro", "crm_id": "crm-77", "email": "ann@new.example.com"])
        #expect(e[6]["anonymousId"]?.stringValue == firstAnonymous)
        // logout: a new anonymous identity.
        #expect(secondAnonymous != firstAnonymous)
        #expect(e[7]["anonymousId"]?.stringValue == secondAnonymous)
        #expect(e[7]["userId"] == nil && e[7]["groupId"] == nil && Self.contextTraits(e[7]) == nil)
        // Anonymous → cust-2 aliases the new anonymous id; cust-2 → cust-3 is another person: no alias.
        #expect(e[8]["anonymousId"]?.stringValue == secondAnonymous && e[8]["previousId"] == nil)
        #expect(e[10]["userId"]?.stringValue == "cust-3")
        #expect(e[10]["anonymousId"]?.stringValue != secondAnonymous)
        #expect(Self.traits(e[10]) == [:])
        #expect(e[11]["userId"]?.stringValue == "cust-3" && Self.contextTraits(e[11]) == nil)

        // Nothing after the logout carries the first user.
        for event in e[7...] {
            let text = JSONValue.object(event).encodedString
            for mark in ["cust-1", "ann@", "+4915100000001", "crm-77", "team-1", firstAnonymous] {
                #expect(!text.contains(mark), "\(mark) in \(text)")
            }
        }
        // Nothing of cust-2 is carried to cust-3.
        #expect(!JSONValue.object(e[11]).encodedString.contains("bob@"))
        await client.shutdown()
    }

    @Test func modifyNeverMakesANewUserAndLoginNeedsACustomerId() async throws {
        let transport = ScriptedTransport()
        let client = try MetaRouterClient(options: clientOptions(), transport: transport, clock: TestClock())
        await startRunning(client)
        await #expect(throws: IdentityTransitionError.customerIdChange(current: nil, requested: "x")) {
            try await client.modify(UserIdentities(customerId: "x"))
        }
        await #expect(throws: IdentityTransitionError.missingCustomerId) {
            try await client.login(UserIdentities(email: "a@b.c"))
        }
        let anonymous = await client.anonymousId
        try await client.modify(UserIdentities(email: "anon@example.com"))
        #expect(await client.currentIdentity == Identity(anonymousId: anonymous))
        #expect(await client.currentTraits == ["email": "anon@example.com"])
        try await client.login(UserIdentities(customerId: "u-1"))
        await #expect(throws: IdentityTransitionError.customerIdChange(current: "u-1", requested: "u-2")) {
            try await client.modify(UserIdentities(customerId: "u-2", email: "x@y.z"))
        }
        #expect(await client.currentIdentity.userId == "u-1")
        // The anonymous traits went with the user at login.
        #expect(await client.currentTraits == ["email": "anon@example.com"])
        await client.drain()
        #expect(transport.events.map { $0["type"]?.stringValue ?? "" } == ["identify", "alias", "identify"])
        #expect(transport.events[0]["userId"] == nil)
        await client.shutdown()
    }

    @Test func eachTransitionIsOneWriteAndACrashDuringItLeavesThePreviousUser() async throws {
        let storage = CrashingStorage()
        let transport = ScriptedTransport()
        let client = try MetaRouterClient(
            options: clientOptions { $0.identityStorage = .custom(storage) },
            transport: transport, clock: TestClock())
        await startRunning(client)
        try await client.login(UserIdentities(customerId: "u-1", email: "u1@example.com"))
        await client.group("g-1")
        let loggedIn = await client.currentIdentity
        let writesBefore = storage.writes.count

        storage.failWrites = true
        await #expect(throws: CrashingStorage.Crash.self) { try await client.logout() }
        await #expect(throws: CrashingStorage.Crash.self) {
            try await client.login(UserIdentities(customerId: "u-2", email: "u2@example.com"))
        }
        // Nothing changed in memory nor in storage, and no event announced a transition.
        #expect(await client.currentIdentity == loggedIn)
        #expect(await client.currentTraits == ["email": "u1@example.com"])
        let reloaded = try PersistedIdentity(storage: storage)
        #expect(await reloaded.identity == loggedIn)
        #expect(await reloaded.record.traits == ["email": "u1@example.com"])

        storage.failWrites = false
        try await client.logout()
        try await client.login(UserIdentities(customerId: "u-2", email: "u2@example.com", mobileNumber: "+1"))
        // One write per transition, each a whole record: a crash leaves one record or the next.
        let later = storage.writes.dropFirst(writesBefore)
        #expect(later.count == 2)
        #expect(later.allSatisfy { $0.key == IdentityRecord.key })
        let records = later.compactMap { $0.value.flatMap(IdentityRecord.init(decoding:)) }
        #expect(records.map(\.identity.userId) == [nil, "u-2"])
        #expect(records.map(\.identity.groupId) == [nil, nil])
        #expect(records[0].traits == nil)
        #expect(records[1].traits == ["email": "u2@example.com", "phone": "+1"])
        await client.drain()
        let types = transport.events.map { $0["type"]?.stringValue ?? "" }
        #expect(types == ["alias", "identify", "group", "alias", "identify"])
        await client.shutdown()
    }

    @Test func aStoreFromTheSeparateSDKKeysIsReadAndRewrittenAsOneRecord() async throws {
        let storage = CrashingStorage()
        try storage.set("legacy-anon", forKey: PersistedIdentity.Key.anonymousId)
        try storage.set("legacy-user", forKey: PersistedIdentity.Key.userId)
        let identity = try PersistedIdentity(storage: storage)
        #expect(await identity.identity == Identity(anonymousId: "legacy-anon", userId: "legacy-user"))
        let record = storage.string(forKey: IdentityRecord.key).flatMap(IdentityRecord.init(decoding:))
        #expect(record?.identity == Identity(anonymousId: "legacy-anon", userId: "legacy-user"))
    }
}
