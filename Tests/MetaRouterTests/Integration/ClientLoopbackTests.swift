import Collector
import Foundation
import JSONCore
@_spi(PerLine) import MetaRouter
import NIOPosix
import ServerTesting
import Testing

/// `MetaRouterClient` with its own HTTP transport against the in-process collector.
@Suite(.serialized) struct ClientLoopbackTests {
    @Test func everyCallArrivesAtTheCollectorDespiteFailures() async throws {
        let dir = temporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let storePath = dir + "/events.ndjson"
        let server = CollectorServer(
            configuration: CollectorConfiguration(
                writeKey: "client-key", store: .ndjson(storePath), strict: true,
                faults: FaultConfiguration(seed: 5, failureRate: 0.2, failureStatus: 503, resetRate: 0.05)))
        try await withRunningServer(server) { running in
            var options = ClientOptions(writeKey: "client-key", ingestionHost: await server.baseURL)
            options.delivery.retryFloor = .milliseconds(10)
            options.delivery.breaker.cooldown = .milliseconds(20)
            options.delivery.breaker.maxCooldown = .milliseconds(50)
            options.delivery.maxAttempts = 100
            options.delivery.maxBatchEvents = 40
            options.delivery.gzip = true
            options.diskQueuePath = dir + "/queue.v1.json"
            // What is checked is that every call arrives, not how fast: a loaded CI machine can need
            // far more than the default 10 s to retry 501 events through these faults.
            options.shutdownTimeout = .seconds(300)
            let client = try MetaRouterClient(options: options)
            await startRunning(client)

            await client.identify("user-1")
            for k in 0..<500 { await client.track("Step", properties: ["k": .number(JSONNumber(k))]) }
            await client.shutdown()
            let stats = await client.stats
            let collector = server.stats()
            await running.shutdown()

            #expect(stats.delivered == 501)
            #expect(stats.notDelivered == 0)
            #expect(stats.givenUp.isEmpty)
            #expect(collector.unique == 501)
            #expect(collector.invalid == 0)
            #expect(collector.responses(503) > 0)
            #expect(!(FileManager.default.fileExists(atPath: dir + "/queue.v1.json")))
            // One identity, one lane: the stored order is the call order.
            let lines = try String(contentsOfFile: storePath, encoding: .utf8).split(separator: "\n")
            var seen = Set<String>()
            var ks: [Int] = []
            for line in lines {
                let e = try #require(JSONValue(parsing: String(line)).objectValue)
                guard seen.insert(e["messageId"]?.stringValue ?? "").inserted else { continue }
                #expect(e["userId"]?.stringValue == "user-1")
                if case .number(let n)? = e["properties"]?.objectValue?["k"], let k = n.intValue { ks.append(k) }
            }
            #expect(ks == Array(0..<500))
        }
    }

    @Test func aWrongWriteKeyDisablesTheClient() async throws {
        let server = CollectorServer(configuration: CollectorConfiguration(writeKey: "right-key"))
        try await withRunningServer(server) { running in
            let dir = temporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: dir) }
            var options = ClientOptions(writeKey: "wrong-key", ingestionHost: await server.baseURL)
            options.diskQueuePath = dir + "/queue.v1.json"
            // The caller's event loop group (here the process-wide one), which the client leaves running.
            let client = try MetaRouterClient(options: options, eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
            await startRunning(client)
            for k in 0..<5 { await client.track("E\(k)") }
            await client.drain()
            let disabledBy = await client.disabledBy
            #expect(disabledBy == 401)
            await client.track("Dropped")
            await client.shutdown()
            await running.shutdown()
            let stats = await client.stats
            #expect(stats.notDelivered == 5)
            #expect(stats.droppedDisabled == 1)
            #expect(try DiskQueue(path: options.diskQueuePath!).load().events.count == 5)
        }
    }
}
