import Foundation
import JSONCore
@_spi(PerLine) import MetaRouter
import MetaRouterTesting
import Testing

/// App Tracking Transparency: `waitForTrackingAuthorization` holds events until the status is
/// determined; `context.device.advertisingId` goes only with `authorized`.
@Suite struct ClientTrackingTests {
    static let idfa = "6D92078A-8246-4BA4-AE5B-76104861E7DC"

    static func advertisingId(_ event: JSONObject) -> String? {
        event["context"]?.objectValue?["device"]?.objectValue?["advertisingId"]?.stringValue
    }

    @Test(arguments: [TrackingAuthorizationStatus.authorized, .denied, .restricted])
    func waitingHoldsEventsUntilTheStatusArrivesThenSendsThemWithTheIdfaOnlyIfAuthorized(
        _ status: TrackingAuthorizationStatus
    ) async throws {
        let transport = ScriptedTransport()
        let client = try MetaRouterClient(
            options: clientOptions {
                $0.waitForTrackingAuthorization = true
                $0.delivery.maxBatchEvents = 1  // an event handed to the engine would go out at once
            }, transport: transport, clock: TestClock())
        await startRunning(client)
        #expect(await client.setAdvertisingId(Self.idfa))
        for name in ["Opened", "Viewed", "Tapped"] { await client.track(name) }
        await client.setTrackingAuthorization(.notDetermined)
        await waitForPumpToPark(client)
        await client.flush()
        await client.drain()
        #expect(transport.requests.isEmpty)
        let held = await client.stats
        #expect(held.heldForTracking == 3)
        #expect(held.queued == 3)
        #expect(held.inFlight == 0)

        await client.setTrackingAuthorization(status)
        await client.track("After Decision")
        await client.drain()
        let events = transport.events
        #expect(events.map { $0["event"]?.stringValue } == ["Opened", "Viewed", "Tapped", "After Decision"])
        let expected = status == .authorized ? Self.idfa : nil
        #expect(events.map(Self.advertisingId) == Array(repeating: expected, count: 4))
        #expect(await client.stats.heldForTracking == 3)
        await client.shutdown()
    }

    @Test func aDeniedStatusStripsTheIdfaEvenWithoutWaiting() async throws {
        let transport = ScriptedTransport()
        let client = try MetaRouterClient(options: clientOptions(), transport: transport, clock: TestClock())
        await startRunning(client)
        await client.setAdvertisingId(Self.idfa)
        await client.track("No Status")
        await client.setTrackingAuthorization(.denied)
        await client.track("Denied")
        var own = Event.track("Own Context")
        own.context = ["device": ["advertisingId": .string(Self.idfa), "model": "X"]]
        await client.send(own)
        await client.setTrackingAuthorization(.authorized)
        await client.track("Authorized")
        await client.drain()
        #expect(transport.events.map(Self.advertisingId) == [Self.idfa, nil, nil, Self.idfa])
        #expect(transport.events[2]["context"]?.objectValue?["device"]?.objectValue?["model"] == "X")
        #expect(await client.stats.heldForTracking == 0)
        await client.shutdown()
    }

    @Test func theHoldIsBoundedInMemoryAndOverflowsToDiskInOrder() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let queuePath = dir + "/queue.v1.json"
        let transport = ScriptedTransport()
        let client = try MetaRouterClient(
            options: clientOptions {
                $0.waitForTrackingAuthorization = true
                $0.maxQueueEvents = 10
                $0.diskQueuePath = queuePath
            }, transport: transport, clock: TestClock())
        await startRunning(client)
        for i in 0..<25 { await client.track("E\(i)") }
        let held = await client.stats
        #expect(held.queued <= 10)
        #expect(held.queuedOnDisk == 25 - held.queued)
        #expect(held.spilledToDisk >= 15)
        #expect(held.droppedQueueFull == 0)
        #expect(FileManager.default.fileExists(atPath: DiskQueue.overflowPath(forQueue: queuePath)))
        #expect(transport.requests.isEmpty)

        await client.setTrackingAuthorization(.authorized)
        await client.drain()
        #expect(transport.events.map { $0["event"]?.stringValue } == (0..<25).map { "E\($0)" })
        #expect(await client.stats.queuedOnDisk == 0)
        #expect(!FileManager.default.fileExists(atPath: DiskQueue.overflowPath(forQueue: queuePath)))
        await client.shutdown()
    }

    @Test func heldEventsGoToTheDiskQueueAtShutdownAndTheNextClientSendsThem() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let queuePath = dir + "/queue.v1.json"
        let transport = ScriptedTransport()
        let options = clientOptions {
            $0.waitForTrackingAuthorization = true
            $0.maxQueueEvents = 4
            $0.diskQueuePath = queuePath
        }
        let first = try MetaRouterClient(options: options, transport: transport, clock: TestClock())
        await startRunning(first)
        for i in 0..<9 { await first.track("E\(i)") }
        await first.shutdown()
        #expect(transport.requests.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: DiskQueue.overflowPath(forQueue: queuePath)))
        let saved = try DiskQueue(path: queuePath, maxAge: nil).load().events
        #expect(saved.map(\.event) == (0..<9).map { "E\($0)" })
    }
}
