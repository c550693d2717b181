import Foundation
import JSONCore
import XCTest

@testable import MetaRouter

final class IdentityTests: XCTestCase {
    func testAnonymousIdIsMadeOnceAndPersisted() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ident-\(UUID())")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("identity.json").path
        let first = try PersistedIdentity(storage: FileKeyValueStorage(path: path))
        let id = await first.identity.anonymousId
        XCTAssertEqual(id, id.lowercased())
        XCTAssertNotNil(UUID(uuidString: id))
        try await first.identify(userId: "u-1")
        try await first.group(groupId: "g-1")
        let second = try PersistedIdentity(storage: FileKeyValueStorage(path: path))
        let loaded = await second.identity
        XCTAssertEqual(loaded, Identity(anonymousId: id, userId: "u-1", groupId: "g-1"))
        let raw = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(raw.contains(PersistedIdentity.Key.anonymousId))
    }

    func testAdvertisingIdMustBeValidNonZeroUUID() async throws {
        let identity = try PersistedIdentity(storage: InMemoryKeyValueStorage())
        let valid = "123E4567-E89B-12D3-A456-426614174000"
        let ok = try await identity.setAdvertisingId(valid)
        XCTAssertTrue(ok)
        let stored = await identity.identity.advertisingId
        XCTAssertEqual(stored, valid)
        let rejected = try await identity.setAdvertisingId("not-a-uuid")
        XCTAssertFalse(rejected)
        let cleared = await identity.identity.advertisingId
        XCTAssertNil(cleared)
        let zero = try await identity.setAdvertisingId(AdvertisingID.zero)
        XCTAssertFalse(zero)
        XCTAssertNil(AdvertisingID.validated(AdvertisingID.zero))
        XCTAssertEqual(AdvertisingID.validated(valid), valid)
    }

    func testResetMakesNewAnonymousIdAndClearsTheRest() async throws {
        let storage = InMemoryKeyValueStorage()
        let identity = try PersistedIdentity(storage: storage)
        let before = await identity.identity.anonymousId
        try await identity.identify(userId: "u")
        try await identity.reset()
        let after = await identity.identity
        XCTAssertNotEqual(after.anonymousId, before)
        XCTAssertNil(after.userId)
        XCTAssertNil(storage.string(forKey: PersistedIdentity.Key.userId))
    }

    func testPreparationFillsIdentityContextAndIds() {
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
        XCTAssertEqual(p.anonymousId, "anon")
        XCTAssertEqual(p.userId, "user")
        XCTAssertEqual(p.groupId, "grp")
        XCTAssertEqual(p.messageId, "1700000000000-00000000-0000-4000-8000-000000000001")
        XCTAssertEqual(p.timestamp, "2023-11-14T22:13:20.000Z")
        XCTAssertNil(p.sentAt)
        let ctx = p.context!
        XCTAssertEqual(ctx["library"], ["name": "lib", "version": "9"])
        XCTAssertEqual(ctx["app"], ["name": "Mine", "version": "1"])  // event's own value wins
        XCTAssertEqual(ctx["locale"], "de-DE")
        XCTAssertEqual(ctx["timezone"], "UTC")
        XCTAssertEqual(ctx["device"], ["model": "X", "advertisingId": "123E4567-E89B-12D3-A456-426614174000"])

        let alias = EventPreparation.prepare(.alias("new"), identity: identity, context: info, now: now)
        XCTAssertEqual(alias.previousId, "user")
        XCTAssertEqual(alias.userId, "new")
    }
}
