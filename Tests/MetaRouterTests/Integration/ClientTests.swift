import Foundation
import JSONCore
import XCTest

@testable import MetaRouter

/// `MetaRouterClient` with a recording transport and a manual clock: nothing here waits on real time.
final class ClientTests: XCTestCase {
    func testCallsAreEnrichedWithIdentityContextMessageIdAndTimestamp() async throws {
        let clock = ManualClock()
        let transport = RecordingTransport()
        let client = try MetaRouterClient(options: clientOptions {
            $0.context = ContextInfo(libraryName: "my-server", libraryVersion: "2.0", app: ["name": "shop"])
        }, transport: transport, clock: clock)
        let anonymousId = await client.anonymousId
        XCTAssertNotNil(UUID(uuidString: anonymousId))
        XCTAssertEqual(anonymousId, anonymousId.lowercased())

        await client.track("Signed Up", properties: ["plan": "pro"])
        await client.identify("user-1", traits: ["email": "a@b.c"])
        await client.group("team-9")
        await client.screen("Home")
        await client.page("Pricing")
        await client.alias("user-2")
        await client.track("After Alias")
        await client.drain()

        let events = transport.events
        XCTAssertEqual(events.map { $0["type"]?.stringValue }, ["track", "identify", "group", "screen", "page", "alias", "track"])
        for e in events {
            XCTAssertEqual(e["anonymousId"]?.stringValue, anonymousId)
            XCTAssertTrue(MessageID.isWellFormed(e["messageId"]?.stringValue ?? ""), "\(e)")
            XCTAssertEqual(e["timestamp"]?.stringValue, Timestamp.iso8601(clock.wallClock))
            XCTAssertEqual(e["writeKey"]?.stringValue, "client-key")
            let context = e["context"]?.objectValue
            XCTAssertEqual(context?["library"]?.objectValue?["name"]?.stringValue, "my-server")
            XCTAssertEqual(context?["app"]?.objectValue?["name"]?.stringValue, "shop")
        }
        XCTAssertEqual(Set(events.compactMap { $0["messageId"]?.stringValue }).count, 7)
        XCTAssertEqual(events[0]["event"]?.stringValue, "Signed Up")
        XCTAssertNil(events[0]["userId"])
        XCTAssertEqual(events[1]["userId"]?.stringValue, "user-1")
        XCTAssertEqual(events[2]["userId"]?.stringValue, "user-1")
        XCTAssertEqual(events[2]["groupId"]?.stringValue, "team-9")
        XCTAssertEqual(events[3]["name"]?.stringValue, "Home")
        XCTAssertEqual(events[5]["userId"]?.stringValue, "user-2")
        XCTAssertEqual(events[5]["previousId"]?.stringValue, "user-1")
        XCTAssertEqual(events[6]["userId"]?.stringValue, "user-2")
        XCTAssertEqual(events[6]["groupId"]?.stringValue, "team-9")
        let stats = await client.stats
        XCTAssertEqual(stats.delivered, 7)
        XCTAssertEqual(stats.inFlight, 0)
        XCTAssertEqual(stats.queued, 0)
        await client.shutdown()
    }

    func testIdentityIsPersistedAcrossClientsAndResetMakesANewOne() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let options = clientOptions { $0.identityStorage = .directory(dir) }
        let first = try MetaRouterClient(options: options, transport: RecordingTransport(), clock: ManualClock())
        let anonymousId = await first.anonymousId
        await first.identify("user-7")
        await first.group("g-1")
        await first.shutdown()

        let second = try MetaRouterClient(options: options, transport: RecordingTransport(), clock: ManualClock())
        let identity = await second.currentIdentity
        XCTAssertEqual(identity, Identity(anonymousId: anonymousId, userId: "user-7", groupId: "g-1"))
        await second.reset()
        let afterReset = await second.currentIdentity
        XCTAssertNotEqual(afterReset.anonymousId, anonymousId)
        XCTAssertNil(afterReset.userId)
        XCTAssertNil(afterReset.groupId)
        await second.shutdown()

        let third = try MetaRouterClient(options: options, transport: RecordingTransport(), clock: ManualClock())
        let thirdIdentity = await third.currentIdentity
        XCTAssertEqual(thirdIdentity, afterReset)
        await third.shutdown()
    }

    func testAdvertisingIdIsValidatedAttachedAndCleared() async throws {
        let transport = RecordingTransport()
        let client = try MetaRouterClient(options: clientOptions(), transport: transport, clock: ManualClock())
        let id = "6D92078A-8246-4BA4-AE5B-76104861E7DC"
        let accepted = await client.setAdvertisingId(id)
        XCTAssertTrue(accepted)
        await client.track("With Ad Id")
        let refused = await client.setAdvertisingId(AdvertisingID.zero)
        XCTAssertFalse(refused)
        await client.track("Zero Refused")
        await client.setAdvertisingId(id)
        await client.clearAdvertisingId()
        await client.track("Cleared")
        await client.drain()
        let ads = transport.events.map { $0["context"]?.objectValue?["device"]?.objectValue?["advertisingId"]?.stringValue }
        XCTAssertEqual(ads, [id, nil, nil])
        await client.shutdown()
    }

    func testFlushTimerSendsPartialBatchesEveryInterval() async throws {
        let clock = ManualClock()
        let transport = RecordingTransport()
        let client = try MetaRouterClient(options: clientOptions {
            $0.flushInterval = .seconds(10)
            $0.delivery.maxBatchEvents = 100
        }, transport: transport, clock: clock)
        await clock.waitForSleepers(1)  // the timer waits for its first tick
        await client.track("One")
        await client.track("Two")
        XCTAssertEqual(transport.requests.count, 0, "a partial batch waits for the timer")
        clock.advance(by: .seconds(10))
        await transport.waitForRequests(1)
        XCTAssertEqual(transport.batches[0].map { $0["event"]?.stringValue }, ["One", "Two"])

        await clock.waitForSleepers(1)  // the next tick is scheduled
        await client.track("Three")
        clock.advance(by: .seconds(10))
        await transport.waitForRequests(2)
        XCTAssertEqual(transport.batches[1].map { $0["event"]?.stringValue }, ["Three"])
        await client.shutdown()
    }

    func testFatal401DisablesTheClientDropsLaterCallsAndKeepsTheEventsOnDisk() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let queuePath = dir + "/queue.v1.json"
        let client = try MetaRouterClient(options: clientOptions { $0.diskQueuePath = queuePath },
                                          transport: RecordingTransport(status: 401), clock: ManualClock())
        for k in 0..<3 { await client.track("E\(k)") }
        await client.drain()
        let disabledBy = await client.disabledBy
        XCTAssertEqual(disabledBy, 401)
        await client.track("Dropped")
        await client.identify("nobody")
        let stats = await client.stats
        XCTAssertEqual(stats.notDelivered, 3)
        XCTAssertEqual(stats.droppedDisabled, 2)
        XCTAssertEqual(stats.delivered, 0)
        await client.shutdown()

        let saved = try DiskQueue(path: queuePath, maxAge: nil).load()
        XCTAssertEqual(saved.events.map(\.event), ["E0", "E1", "E2"])
        let identity = await client.currentIdentity
        XCTAssertNil(identity.userId, "a dropped identify changes nothing")
    }

    func testShutdownSnapshotsUndeliveredEventsAndTheNextClientSendsThem() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let queuePath = dir + "/queue.v1.json"
        let clock = ManualClock()
        // The endpoint fails and one attempt is all the budget: the engine stops with retriesExhausted.
        let failing = try MetaRouterClient(options: clientOptions {
            $0.diskQueuePath = queuePath
            $0.delivery.maxAttempts = 1
        }, transport: RecordingTransport(status: 503), clock: clock)
        await failing.track("A")
        await failing.track("B")
        await failing.drain()
        await failing.track("C")  // queued behind the stopped engine
        await failing.shutdown()
        let failedStats = await failing.stats
        XCTAssertEqual(failedStats.notDelivered, 2)
        await failing.track("After Shutdown")
        let afterShutdown = await failing.stats
        XCTAssertEqual(afterShutdown.droppedDisabled, 1)

        let saved = try DiskQueue(path: queuePath, maxAge: nil).load()
        XCTAssertEqual(saved.events.map(\.event), ["A", "B", "C"])
        let savedIds = saved.events.map(\.messageId)

        let transport = RecordingTransport()
        let next = try MetaRouterClient(options: clientOptions { $0.diskQueuePath = queuePath },
                                        transport: transport, clock: clock)
        XCTAssertFalse(FileManager.default.fileExists(atPath: queuePath), "the snapshot is removed once loaded")
        await next.drain()
        XCTAssertEqual(transport.events.map { $0["event"]?.stringValue }, ["A", "B", "C"])
        XCTAssertEqual(transport.events.map { $0["messageId"]?.stringValue }, savedIds)
        let stats = await next.stats
        XCTAssertEqual(stats.rehydrated, 3)
        XCTAssertEqual(stats.delivered, 3)
        await next.shutdown()
        XCTAssertFalse(FileManager.default.fileExists(atPath: queuePath), "nothing left, no snapshot")
    }

    func testRehydrationDropsEventsOlderThanSevenDays() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let queuePath = dir + "/queue.v1.json"
        let clock = ManualClock()
        var old = Event.track("Old")
        old.messageId = "old-1"
        old.anonymousId = "a"
        old.timestamp = Timestamp.iso8601(clock.wallClock.addingTimeInterval(-8 * 86_400))
        var recent = Event.track("Recent")
        recent.messageId = "recent-1"
        recent.anonymousId = "a"
        recent.timestamp = Timestamp.iso8601(clock.wallClock.addingTimeInterval(-6 * 86_400))
        try DiskQueue(path: queuePath).save([old, recent])

        let transport = RecordingTransport()
        let client = try MetaRouterClient(options: clientOptions { $0.diskQueuePath = queuePath },
                                          transport: transport, clock: clock)
        await client.drain()
        XCTAssertEqual(transport.events.map { $0["messageId"]?.stringValue }, ["recent-1"])
        XCTAssertEqual(transport.events.first?["timestamp"]?.stringValue, recent.timestamp)
        let stats = await client.stats
        XCTAssertEqual(stats.rehydrated, 1)
        XCTAssertEqual(stats.snapshotExpired, 1)
        await client.shutdown()
    }

    /// A snapshot path that cannot be read nor moved aside (here: a directory) is left alone at
    /// shutdown; undelivered events are saved beside it instead.
    func testASnapshotThatCannotBeMovedIsNeverOverwritten() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let queuePath = dir + "/queue.v1.json"
        try FileManager.default.createDirectory(atPath: queuePath + "/inside", withIntermediateDirectories: true)
        let client = try MetaRouterClient(options: clientOptions { $0.diskQueuePath = queuePath },
                                          transport: RecordingTransport(status: 401), clock: ManualClock())
        await client.track("Kept")
        await client.drain()
        await client.shutdown()
        XCTAssertTrue(FileManager.default.fileExists(atPath: queuePath + "/inside"), "left as it was")
        let beside = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix("queue.v1.json.unsent-") }
        XCTAssertEqual(beside.count, 1)
        let saved = try DiskQueue(path: dir + "/" + beside[0]).load()
        XCTAssertEqual(saved.events.map(\.event), ["Kept"])
    }

    /// An event that cannot be encoded (nested deeper than the scanner allows) is dropped and
    /// counted, so the counters still add up.
    func testAnUnencodableEventIsCounted() async throws {
        var nested = JSONObject([("leaf", .bool(true))])
        for _ in 0..<600 { nested = JSONObject([("a", .object(nested))]) }
        let transport = RecordingTransport()
        let client = try MetaRouterClient(options: clientOptions(), transport: transport, clock: ManualClock())
        await client.track("Deep", properties: nested)
        await client.track("Fine")
        await client.drain()
        let stats = await client.stats
        XCTAssertEqual(stats.droppedUnencodable, 1)
        XCTAssertEqual(stats.delivered, 1)
        XCTAssertEqual(transport.events.map { $0["event"]?.stringValue }, ["Fine"])
        await client.shutdown()
    }

    /// A snapshot of another version (or too damaged to find one) is moved aside, never deleted
    /// nor overwritten at shutdown; the client counts it.
    func testAnUnreadableSnapshotIsMovedAsideNotLost() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        for (name, content) in [("v2", #"{"version":2,"events":[{"type":"track","event":"Future"}]}"#), ("broken", "{\"ev")] {
            let queuePath = dir + "/\(name)-queue.v1.json"
            try Data(content.utf8).write(to: URL(fileURLWithPath: queuePath))
            let client = try MetaRouterClient(options: clientOptions { $0.diskQueuePath = queuePath },
                                              transport: RecordingTransport(), clock: ManualClock())
            await client.track("Now")
            await client.drain()
            let stats = await client.stats
            XCTAssertEqual(stats.snapshotsSetAside, 1, name)
            XCTAssertEqual(stats.rehydrated, 0, name)
            await client.shutdown()
            let aside = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix("\(name)-queue.v1.json.unreadable-") }
            XCTAssertEqual(aside.count, 1, name)
            XCTAssertEqual(try String(contentsOfFile: dir + "/" + aside[0], encoding: .utf8), content, name)
        }
    }

    func testAFullQueueDropsTheOldestEvents() async throws {
        let gate = GatedTransport()
        let client = try MetaRouterClient(options: clientOptions {
            $0.maxQueueEvents = 3
            $0.delivery.maxPendingEvents = 1
        }, transport: gate, clock: ManualClock())
        for k in 0..<10 { await client.track("E\(k)") }
        let before = await client.stats
        // The hand-off task may already have taken one more into the engine; the queue never holds more than 3.
        XCTAssertLessThanOrEqual(before.queued, 3)
        XCTAssertGreaterThanOrEqual(before.droppedQueueFull, 5)
        gate.release()
        await client.drain()
        let after = await client.stats
        XCTAssertEqual(after.delivered + after.droppedQueueFull, 10)
        XCTAssertEqual(after.queued, 0)
        await client.shutdown()
    }

    func testRejectedEventsAreGivenUpWithTheirReasonAndNotSnapshotted() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let queuePath = dir + "/queue.v1.json"
        let transport = RecordingTransport(status: 400)
        let client = try MetaRouterClient(options: clientOptions { $0.diskQueuePath = queuePath },
                                          transport: transport, clock: ManualClock())
        for k in 0..<3 { await client.track("E\(k)") }
        await client.drain()
        let stats = await client.stats
        XCTAssertEqual(stats.givenUp, ["rejected_400": 3])
        XCTAssertEqual(stats.delivered, 0)
        let disabledBy = await client.disabledBy
        XCTAssertNil(disabledBy, "a 400 does not disable the client")
        await client.track("Still Accepted")
        await client.drain()
        XCTAssertEqual(transport.events.last?["event"]?.stringValue, "Still Accepted")
        await client.shutdown()
        XCTAssertFalse(FileManager.default.fileExists(atPath: queuePath), "given-up events are settled, not kept")
    }

    func testInvalidOptionsAreRejectedWithTheSettingName() {
        XCTAssertThrowsError(try MetaRouterClient(options: clientOptions { $0.flushInterval = .zero })) {
            XCTAssertEqual(($0 as? DeliveryConfigurationError)?.setting, "flushInterval")
        }
        XCTAssertThrowsError(try MetaRouterClient(options: clientOptions { $0.writeKey = "" })) {
            XCTAssertEqual(($0 as? DeliveryConfigurationError)?.setting, "writeKey")
        }
        XCTAssertThrowsError(try MetaRouterClient(options: clientOptions { $0.maxQueueEvents = 0 })) {
            XCTAssertEqual(($0 as? DeliveryConfigurationError)?.setting, "maxQueueEvents")
        }
    }
}

/// Shutdown when the endpoint never answers: the time limit cancels the engine and nothing is lost.
final class ClientShutdownTests: XCTestCase {
    func testShutdownTimeoutCancelsAHangingEngineAndSnapshotsEverything() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let queuePath = dir + "/queue.v1.json"
        let clock = ManualClock()
        let gate = GatedTransport()
        let client = try MetaRouterClient(options: clientOptions {
            $0.diskQueuePath = queuePath
            $0.shutdownTimeout = .seconds(5)
            $0.flushInterval = .seconds(1000)
        }, transport: gate, clock: clock)
        for k in 0..<4 { await client.track("E\(k)") }
        await client.flush()  // one request, held by the gate
        let shutdown = Task { await client.shutdown() }
        await clock.waitForSleeper(until: .seconds(5))
        clock.advance(by: .seconds(5))  // the time limit: the engine is cancelled with 1 s of grace
        await clock.waitForSleeper(until: .seconds(6))
        clock.advance(by: .seconds(1))  // grace over: the held request is abandoned
        await shutdown.value
        gate.release()  // its late answer produces no second outcome

        let stats = await client.stats
        XCTAssertEqual(stats.notDelivered, 4)
        XCTAssertEqual(stats.delivered, 0)
        let saved = try DiskQueue(path: queuePath, maxAge: nil).load()
        XCTAssertEqual(saved.events.map(\.event), ["E0", "E1", "E2", "E3"])
    }
}
