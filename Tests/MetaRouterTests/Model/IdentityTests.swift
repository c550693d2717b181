import Foundation
import JSONCore
@_spi(PerLine) import MetaRouter
import Testing

@Suite struct IdentityTests {
    @Test func anonymousIdIsMadeOnceAndPersisted() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ident-\(UUID())")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("identity.json").path
        let first = try PersistedIdentity(storage: FileKeyValueStorage(path: path))
        let id = await first.identity.anonymousId
        #expect(id == id.lowercased())
        #expect(UUID(uuidString: id) != nil)
        try await first.identify(userId: "u-1")
        try await first.group(groupId: "g-1")
        let second = try PersistedIdentity(storage: FileKeyValueStorage(path: path))
        let loaded = await second.identity
        #expect(loaded == Identity(anonymousId: id, userId: "u-1", groupId: "g-1"))
        let raw = try String(contentsOfFile: path, encoding: .utf8)
        #expect(raw.contains(PersistedIdentity.Key.anonymousId))
    }

    @Test func advertisingIdMustBeValidNonZeroUUID() async throws {
        let identity = try PersistedIdentity(storage: InMemoryKeyValueStorage())
        let valid = "123E4567-E89B-12D3-A456-426614174000"
        let ok = try await identity.setAdvertisingId(valid)
        #expect(ok)
        let stored = await identity.identity.advertisingId
        #expect(stored == valid)
        let rejected = try await identity.setAdvertisingId("not-a-uuid")
        #expect(!rejected)
        let cleared = await identity.identity.advertisingId
        #expect(cleared == nil)
        let zero = try await identity.setAdvertisingId(AdvertisingID.zero)
        #expect(!zero)
        #expect(AdvertisingID.validated(AdvertisingID.zero) == nil)
        #expect(AdvertisingID.validated(valid) == valid)
    }

    @Test func resetMakesNewAnonymousIdAndClearsTheRest() async throws {
        let storage = InMemoryKeyValueStorage()
        let identity = try PersistedIdentity(storage: storage)
        let before = await identity.identity.anonymousId
        try await identity.identify(userId: "u")
        try await identity.reset()
        let after = await identity.identity
        #expect(after.anonymousId != before)
        #expect(after.userId == nil)
        #expect(storage.string(forKey: PersistedIdentity.Key.userId) == nil)
    }

    @Test func preparationFillsIdentityContextAndIds() {
        let identity = Identity(
            anonymousId: "anon", userId: "user", groupId: "grp",
            advertisingId: "123E4567-E89B-12D3-A456-426614174000")
        let info = ContextInfo(
            libraryName: "lib", libraryVersion: "9", app: ["name": "App", "version": "1"],
            device: ["model": "X"], locale: "en-US", timezone: "UTC")
        var event = Event.track("Bought")
        event.context = ["app": ["name": "Mine"], "locale": "de-DE"]
        event.sentAt = "captured"
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let uuid = UUID(uuidString: "00000000-0000-4000-8000-000000000001")!
        let p = EventPreparation.prepare(event, identity: identity, context: info, now: now, uuid: uuid)
        #expect(p.anonymousId == "anon")
        #expect(p.userId == "user")
        #expect(p.groupId == "grp")
        #expect(p.messageId == "1700000000000-00000000-0000-4000-8000-000000000001")
        #expect(p.timestamp == "2023-11-14T22:13:20.000Z")
        #expect(p.sentAt == nil)
        let ctx = p.context!
        #expect(ctx["library"] == ["name": "lib", "version": "9"])
        #expect(ctx["app"] == ["name": "Mine", "version": "1"])  // event's own value wins
        #expect(ctx["locale"] == "de-DE")
        #expect(ctx["timezone"] == "UTC")
        #expect(ctx["device"] == ["model": "X", "advertisingId": "123E4567-E89B-12D3-A456-426614174000"])

        let alias = EventPreparation.prepare(.alias("new"), identity: identity, context: info, now: now)
        // The SDKs' shape: the anonymousId is linked to the new userId; no previousId is added.
        #expect(alias.previousId == nil)
        #expect(alias.anonymousId == identity.anonymousId)
        #expect(alias.userId == "new")
    }
}
