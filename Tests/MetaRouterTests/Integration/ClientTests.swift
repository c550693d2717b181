import Foundation
import JSONCore
@_spi(PerLine) import MetaRouter
import MetaRouterTesting
import Testing
import Timestamps

/// `MetaRouterClient` with a recording transport and a manual clock: nothing here waits on real time.
@Suite struct ClientTests {
    @Test func callsAreEnrichedWithIdentityContextMessageIdAndTimestamp() async throws {
        let clock = TestClock()
        let transport = ScriptedTransport()
        let client = try MetaRouterClient(
            options: clientOptions {
                $0.context = ContextInfo(libraryName: "my-server", libraryVersion: "2.0", app: ["name": "shop"])
            }, transport: transport, clock: clock)
        await startRunning(client)
        let anonymousId = await client.anonymousId
        #expect(UUID(uuidString: anonymousId) != nil)
        #expect(anonymousId == anonymousId.lowercased())

        await client.track("Signed Up", properties: ["plan": "pro"])
        await client.identify("user-1", traits: ["email": "a@b.c"])
        await client.group("team-9")
        await client.screen("Home")
        await client.page("Pricing")
        await client.alias("user-2")
        await client.track("After Alias")
        await client.drain()

        let events = transport.events
        #expect(events.map { $0["type"]?.stringValue } == ["track", "identify", "group", "screen", "page", "alias", "track"])
        for e in events {
            #expect(e["anonymousId"]?.stringValue == anonymousId)
            #expect(MessageID.isWellFormed(e["messageId"]?.stringValue ?? ""), "\(e)")
            #expect(e["timestamp"]?.stringValue == Timestamp.iso8601(clock.wallClock))
            #expect(e["writeKey"]?.stringValue == "client-key")
            let context = e["context"]?.objectValue
            #expect(context?["library"]?.objectValue?["name"]?.stringValue == "my-server")
            #expect(context?["app"]?.objectValue?["name"]?.stringValue == "shop")
        }
        #expect(Set(events.compactMap { $0["messageId"]?.stringValue }).count == 7)
        #expect(events[0]["event"]?.stringValue == "Signed Up")
        #expect(events[0]["userId"] == nil)
        #expect(events[1]["userId"]?.stringValue == "user-1")
        #expect(events[2]["userId"]?.stringValue == "user-1")
        #expect(events[2]["groupId"]?.stringValue == "team-9")
        #expect(events[3]["name"]?.stringValue == "Home")
        #expect(events[5]["userId"]?.stringValue == "user-2")
        // The SDKs' alias: the anonymousId (checked above) is linked to the new user, in the group.
        #expect(events[5]["previousId"] == nil)
        #expect(events[5]["groupId"]?.stringValue == "team-9")
        #expect(events[6]["userId"]?.stringValue == "user-2")
        #expect(events[6]["groupId"]?.stringValue == "team-9")
        let stats = await client.stats
        #expect(stats.delivered == 7)
        #expect(stats.inFlight == 0)
        #expect(stats.queued == 0)
        await client.shutdown()
    }

    @Test func identityIsPersistedAcrossClientsAndResetMakesANewOne() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let options = clientOptions { $0.identityStorage = .directory(dir) }
        let first = try MetaRouterClient(options: options, transport: ScriptedTransport(), clock: TestClock())
        await startRunning(first)
        let anonymousId = await first.anonymousId
        await first.identify("user-7")
        await first.group("g-1")
        await first.shutdown()

        let second = try MetaRouterClient(options: options, transport: ScriptedTransport(), clock: TestClock())
        await startRunning(second)
        let identity = await second.currentIdentity
        #expect(identity == Identity(anonymousId: anonymousId, userId: "user-7", groupId: "g-1"))
        await second.reset()
        let afterReset = await second.currentIdentity
        #expect(afterReset.anonymousId != anonymousId)
        #expect(afterReset.userId == nil)
        #expect(afterReset.groupId == nil)
        await second.shutdown()

        let third = try MetaRouterClient(options: options, transport: ScriptedTransport(), clock: TestClock())
        await startRunning(third)
        let thirdIdentity = await third.currentIdentity
        #expect(thirdIdentity == afterReset)
        await third.shutdown()
    }

    @Test func advertisingIdIsValidatedAttachedAndCleared() async throws {
        let transport = ScriptedTransport()
        let client = try MetaRouterClient(options: clientOptions(), transport: transport, clock: TestClock())
        await startRunning(client)
        let id = "6D92078A-8246-4BA4-AE5B-76104861E7DC"
        let accepted = await client.setAdvertisingId(id)
        #expect(accepted)
        await client.track("With Ad Id")
        let refused = await client.setAdvertisingId(AdvertisingID.zero)
        #expect(!refused)
        await client.track("Zero Refused")
        await client.setAdvertisingId(id)
        await client.clearAdvertisingId()
        await client.track("Cleared")
        await client.drain()
        let ads = transport.events.map { $0["context"]?.objectValue?["device"]?.objectValue?["advertisingId"]?.stringValue }
        #expect(ads == [id, nil, nil])
        await client.shutdown()
    }

    @Test func flushTimerSendsPartialBatchesEveryInterval() async throws {
        let clock = TestClock()
        let transport = ScriptedTransport()
        let client = try MetaRouterClient(
            options: clientOptions {
                $0.flushInterval = .seconds(10)
                $0.delivery.maxBatchEvents = 100
            }, transport: transport, clock: clock)
        await startRunning(client)
        await clock.waitForSleepers(1)  // the timer waits for its first tick
        await client.track("One")
        await client.track("Two")
        #expect(transport.requests.count == 0, "a partial batch waits for the timer")
        clock.advance(by: .seconds(10))
        await transport.waitForRequests(1)
        #expect(transport.batches[0].map { $0["event"]?.stringValue } == ["One", "Two"])

        await clock.waitForSleepers(1)  // the next tick is scheduled
        await client.track("Three")
        clock.advance(by: .seconds(10))
        await transport.waitForRequests(2)
        #expect(transport.batches[1].map { $0["event"]?.stringValue } == ["Three"])
        await client.shutdown()
    }

    @Test func fatal401DisablesTheClientDropsLaterCallsAndKeepsTheEventsOnDisk() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let queuePath = dir + "/queue.v1.json"
        let client = try MetaRouterClient(
            options: clientOptions { $0.diskQueuePath = queuePath },
            transport: ScriptedTransport(status: 401), clock: TestClock())
        await startRunning(client)
        for k in 0..<3 { await client.track("E\(k)") }
        await client.drain()
        let disabledBy = await client.disabledBy
        #expect(disabledBy == 401)
        await client.track("Dropped")
        await client.identify("nobody")
        let stats = await client.stats
        #expect(stats.notDelivered == 3)
        #expect(stats.droppedDisabled == 2)
        #expect(stats.delivered == 0)
        await client.shutdown()

        let saved = try DiskQueue(path: queuePath, maxAge: nil).load()
        #expect(saved.events.map(\.event) == ["E0", "E1", "E2"])
        let identity = await client.currentIdentity
        #expect(identity.userId == nil, "a dropped identify changes nothing")
    }

    @Test func shutdownSnapshotsUndeliveredEventsAndTheNextClientSendsThem() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let queuePath = dir + "/queue.v1.json"
        let clock = TestClock()
        // The endpoint fails and one attempt is all the budget: the engine stops with retriesExhausted.
        let failing = try MetaRouterClient(
            options: clientOptions {
                $0.diskQueuePath = queuePath
                $0.delivery.maxAttempts = 1
            }, transport: ScriptedTransport(status: 503), clock: clock)
        await startRunning(failing)
        await failing.track("A")
        await failing.track("B")
        await failing.drain()
        await failing.track("C")  // queued behind the stopped engine
        await failing.shutdown()
        let failedStats = await failing.stats
        #expect(failedStats.notDelivered == 2)
        await failing.track("After Shutdown")
        let afterShutdown = await failing.stats
        #expect(afterShutdown.droppedDisabled == 1)

        let saved = try DiskQueue(path: queuePath, maxAge: nil).load()
        #expect(saved.events.map(\.event) == ["A", "B", "C"])
        let savedIds = saved.events.map(\.messageId)

        let transport = ScriptedTransport()
        let next = try MetaRouterClient(
            options: clientOptions { $0.diskQueuePath = queuePath },
            transport: transport, clock: clock)
        await startRunning(next)
        #expect(!(FileManager.default.fileExists(atPath: queuePath)), "the snapshot is removed once loaded")
        await next.drain()
        #expect(transport.events.map { $0["event"]?.stringValue } == ["A", "B", "C"])
        #expect(transport.events.map { $0["messageId"]?.stringValue } == savedIds)
        let stats = await next.stats
        #expect(stats.rehydrated == 3)
        #expect(stats.delivered == 3)
        await next.shutdown()
        #expect(!(FileManager.default.fileExists(atPath: queuePath)), "nothing left, no snapshot")
    }

    @Test func rehydrationDropsEventsOlderThanSevenDays() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let queuePath = dir + "/queue.v1.json"
        let clock = TestClock()
        var old = Event.track("Old")
        old.messageId = "old-1"
        old.anonymousId = "a"
        old.timestamp = Timestamp.iso8601(clock.wallClock.addingTimeInterval(-8 * 86_400))
        var recent = Event.track("Recent")
        recent.messageId = "recent-1"
        recent.anonymousId = "a"
        recent.timestamp = Timestamp.iso8601(clock.wallClock.addingTimeInterval(-6 * 86_400))
        try DiskQueue(path: queuePath).save([old, recent])

        let transport = ScriptedTransport()
        let client = try MetaRouterClient(
            options: clientOptions { $0.diskQueuePath = queuePath },
            transport: transport, clock: clock)
        await startRunning(client)
        await client.drain()
        #expect(transport.events.map { $0["messageId"]?.stringValue } == ["recent-1"])
        #expect(transport.events.first?["timestamp"]?.stringValue == recent.timestamp)
        let stats = await client.stats
        #expect(stats.rehydrated == 1)
        #expect(stats.snapshotExpired == 1)
        await client.shutdown()
    }

    /// A snapshot path that cannot be read nor moved aside (here: a directory) is left alone at
    /// shutdown; undelivered events are saved beside it instead.
    @Test func aSnapshotThatCannotBeMovedIsNeverOverwritten() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let queuePath = dir + "/queue.v1.json"
        try FileManager.default.createDirectory(atPath: queuePath + "/inside", withIntermediateDirectories: true)
        let client = try MetaRouterClient(
            options: clientOptions { $0.diskQueuePath = queuePath },
            transport: ScriptedTransport(status: 401), clock: TestClock())
        await startRunning(client)
        await client.track("Kept")
        await client.drain()
        await client.shutdown()
        #expect(FileManager.default.fileExists(atPath: queuePath + "/inside"), "left as it was")
        let beside = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix("queue.v1.json.unsent-") }
        #expect(beside.count == 1)
        let saved = try DiskQueue(path: dir + "/" + beside[0]).load()
        #expect(saved.events.map(\.event) == ["Kept"])
    }

    /// An event that cannot be encoded (nested deeper than the scanner allows) is dropped and
    /// counted, so the counters still add up.
    @Test func anUnencodableEventIsCounted() async throws {
        var nested = JSONObject([("leaf", .bool(true))])
        for _ in 0..<600 { nested = JSONObject([("a", .object(nested))]) }
        let transport = ScriptedTransport()
        let client = try MetaRouterClient(options: clientOptions(), transport: transport, clock: TestClock())
        await startRunning(client)
        await client.track("Deep", properties: nested)
        await client.track("Fine")
        await client.drain()
        let stats = await client.stats
        #expect(stats.droppedUnencodable == 1)
        #expect(stats.delivered == 1)
        #expect(transport.events.map { $0["event"]?.stringValue } == ["Fine"])
        await client.shutdown()
    }

    /// A snapshot of another version (or too damaged to find one) is moved aside, never deleted
    /// nor overwritten at shutdown; the client counts it.
    @Test(arguments: [("v2", #"{"version":2,"events":[{"type":"track","event":"Future"}]}"#), ("broken", "{\"ev")])
    func anUnreadableSnapshotIsMovedAsideNotLost(name: String, content: String) async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let queuePath = dir + "/\(name)-queue.v1.json"
        try Data(content.utf8).write(to: URL(fileURLWithPath: queuePath))
        let client = try MetaRouterClient(
            options: clientOptions { $0.diskQueuePath = queuePath },
            transport: ScriptedTransport(), clock: TestClock())
        await startRunning(client)
        await client.track("Now")
        await client.drain()
        let stats = await client.stats
        #expect(stats.snapshotsSetAside == 1)
        #expect(stats.rehydrated == 0)
        await client.shutdown()
        let aside = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix("\(name)-queue.v1.json.unreadable-") }
        #expect(aside.count == 1)
        #expect(try String(contentsOfFile: dir + "/" + aside[0], encoding: .utf8) == content)
    }

    @Test func aFullQueueDropsTheOldestEvents() async throws {
        let gate = ScriptedTransport(holdingAll: true)
        let client = try MetaRouterClient(
            options: clientOptions {
                $0.maxQueueEvents = 3
                $0.delivery.maxPendingEvents = 1
            }, transport: gate, clock: TestClock())
        await startRunning(client)
        for k in 0..<10 { await client.track("E\(k)") }
        let before = await client.stats
        // The hand-off task may already have taken one more into the engine; the queue never holds more than 3.
        #expect(before.queued <= 3)
        #expect(before.droppedQueueFull >= 5)
        gate.release()
        await client.drain()
        let after = await client.stats
        #expect(after.delivered + after.droppedQueueFull == 10)
        #expect(after.queued == 0)
        await client.shutdown()
    }

    @Test func rejectedEventsAreGivenUpWithTheirReasonAndNotSnapshotted() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let queuePath = dir + "/queue.v1.json"
        let transport = ScriptedTransport(status: 400)
        let client = try MetaRouterClient(
            options: clientOptions { $0.diskQueuePath = queuePath },
            transport: transport, clock: TestClock())
        await startRunning(client)
        for k in 0..<3 { await client.track("E\(k)") }
        await client.drain()
        let stats = await client.stats
        #expect(stats.givenUp == [GiveUpReason.rejected(status: 400).rawValue: 3])
        #expect(stats.delivered == 0)
        let disabledBy = await client.disabledBy
        #expect(disabledBy == nil, "a 400 does not disable the client")
        await client.track("Still Accepted")
        await client.drain()
        #expect(transport.events.last?["event"]?.stringValue == "Still Accepted")
        await client.shutdown()
        #expect(!(FileManager.default.fileExists(atPath: queuePath)), "given-up events are settled, not kept")
    }

    @Test func invalidOptionsAreRejectedWithTheSettingName() {
        let interval = #expect(throws: DeliveryConfigurationError.self) {
            try MetaRouterClient(options: clientOptions { $0.flushInterval = .zero })
        }
        #expect(interval?.setting == "flushInterval")
        let key = #expect(throws: DeliveryConfigurationError.self) {
            try MetaRouterClient(options: clientOptions { $0.writeKey = "" })
        }
        #expect(key?.setting == "writeKey")
        let queue = #expect(throws: DeliveryConfigurationError.self) {
            try MetaRouterClient(options: clientOptions { $0.maxQueueEvents = 0 })
        }
        #expect(queue?.setting == "maxQueueEvents")
    }
}

/// Shutdown when the endpoint never answers: the time limit cancels the engine and nothing is lost.
@Suite struct ClientShutdownTests {
    @Test func shutdownTimeoutCancelsAHangingEngineAndSnapshotsEverything() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let queuePath = dir + "/queue.v1.json"
        let clock = TestClock()
        let gate = ScriptedTransport(holdingAll: true)
        let client = try MetaRouterClient(
            options: clientOptions {
                $0.diskQueuePath = queuePath
                $0.shutdownTimeout = .seconds(5)
                $0.flushInterval = .seconds(1000)
            }, transport: gate, clock: clock)
        await startRunning(client)
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
        #expect(stats.notDelivered == 4)
        #expect(stats.delivered == 0)
        let saved = try DiskQueue(path: queuePath, maxAge: nil).load()
        #expect(saved.events.map(\.event) == ["E0", "E1", "E2", "E3"])
    }
}
