import Foundation
import JSONCore
@_spi(PerLine) import MetaRouter
import MetaRouterTesting
import Testing
import Timestamps

/// `setConsent(_:)`: revoking data usage under GDPR purges what is pending (memory, overflow file,
/// unread snapshot, engine queue) and drops new calls; granting it again resumes sending.
@Suite struct ClientConsentTests {
    static let revoked = Consent(
        isUserSubjectToGDPR: true, hasConsentForDataUsage: false,
        hasConsentForAdsPersonalization: false, hasConsentForAdStorage: false)
    static let granted = Consent(
        isUserSubjectToGDPR: true, hasConsentForDataUsage: true,
        hasConsentForAdsPersonalization: false, hasConsentForAdStorage: true)

    @Test func revocationPurgesFiveHundredPendingEventsInMemoryAndOnDiskAndSendsNone() async throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let queuePath = dir + "/queue.v1.json"
        let overflowPath = DiskQueue.overflowPath(forQueue: queuePath)
        let clock = TestClock()
        // 150 events left on disk by an earlier run.
        let earlier = (0..<150).map { i -> Event in
            var e = Event.track("Earlier \(i)")
            e.anonymousId = "earlier-device"
            e.messageId = "earlier-\(i)"
            e.timestamp = Timestamp.iso8601(clock.wallClock)
            return e
        }
        try DiskQueue(path: queuePath).save(earlier)
        let transport = ScriptedTransport()
        let client = try MetaRouterClient(
            options: clientOptions {
                $0.autoStart = false
                $0.maxQueueEvents = 200
                $0.diskQueuePath = queuePath
            }, transport: transport, clock: clock)
        for i in 0..<350 { await client.track("Pending \(i)") }

        let before = await client.stats
        #expect(before.rehydrated == 150)
        #expect(before.queued + before.queuedOnDisk == 500)
        #expect(before.queuedOnDisk > 0)
        #expect(before.droppedQueueFull == 0)
        #expect(FileManager.default.fileExists(atPath: overflowPath))
        #expect(FileManager.default.fileExists(atPath: queuePath))

        await client.setConsent(Self.revoked)
        let after = await client.stats
        #expect(after.purgedByConsent == 500)
        #expect(after.queued == 0)
        #expect(after.queuedOnDisk == 0)
        #expect(!FileManager.default.fileExists(atPath: overflowPath))
        #expect(!FileManager.default.fileExists(atPath: queuePath))

        // Running and started, nothing pending is sent, and new calls are dropped.
        await startRunning(client)
        await client.start()
        await client.track("While Revoked")
        await client.identify("user-1")
        await client.drain()
        #expect(transport.requests.isEmpty)
        #expect(await client.stats.droppedByConsent == 2)

        await client.setConsent(Self.granted)
        await client.track("After Grant")
        await client.drain()
        #expect(transport.events.map { $0["event"]?.stringValue } == ["After Grant"])
        let consent = transport.events.first?["context"]?.objectValue?["consent"]?.objectValue
        #expect(
            consent == [
                "isUserSubjectToGDPR": true, "hasConsentForDataUsage": true,
                "hasConsentForAdsPersonalization": false, "hasConsentForAdStorage": true,
                "ad_user_data": "granted", "ad_personalization": "denied", "ad_storage": "granted",
            ])
        await client.shutdown()
        #expect(!FileManager.default.fileExists(atPath: queuePath))
    }

    @Test func revocationTakesBackEventsWaitingInTheEngineButNotRequestsAlreadySent() async throws {
        let clock = TestClock()
        let transport = ScriptedTransport()
        let client = try MetaRouterClient(
            options: clientOptions {
                $0.delivery.maxBatchEvents = 1000  // partial batches wait in the engine for a flush
                $0.flushInterval = .seconds(3600)
            }, transport: transport, clock: clock)
        await startRunning(client)
        await client.track("Sent Before")
        await client.drain()
        #expect(transport.events.count == 1)
        for i in 0..<40 { await client.track("Waiting \(i)") }
        await waitForPumpToPark(client)  // it handed all 40 to the engine, then parked
        #expect(await client.stats.inFlight == 40)

        await client.setConsent(Self.revoked)
        #expect(await client.stats.purgedByConsent == 40)
        #expect(await client.stats.inFlight == 0)
        await client.flush()
        await client.drain()
        #expect(transport.events.map { $0["event"]?.stringValue } == ["Sent Before"])
        #expect(await client.stats.delivered == 1)
        await client.shutdown()
    }

    @Test func adsFlagsDoNotGateSendingAndAreForwardedWithConsentModeNames() async throws {
        let transport = ScriptedTransport()
        let client = try MetaRouterClient(options: clientOptions(), transport: transport, clock: TestClock())
        await startRunning(client)
        await client.setConsent(
            Consent(
                isUserSubjectToGDPR: false, hasConsentForDataUsage: false,
                hasConsentForAdsPersonalization: true, hasConsentForAdStorage: false))
        await client.track("Not Subject")
        await client.setConsent(
            Consent(
                isUserSubjectToGDPR: true, hasConsentForDataUsage: true,
                hasConsentForAdsPersonalization: false, hasConsentForAdStorage: false))
        await client.track("Ads Denied")
        await client.drain()
        let consents = transport.events.map { $0["context"]?.objectValue?["consent"]?.objectValue }
        let modeNames = ["isUserSubjectToGDPR", "ad_user_data", "ad_personalization", "ad_storage"]
        #expect(
            consents.map { c in modeNames.map { c?[$0] } } == [
                [false, "denied", "granted", "denied"],
                [true, "granted", "denied", "denied"],
            ])
        #expect(await client.stats.droppedByConsent == 0)
        await client.shutdown()
    }
}
