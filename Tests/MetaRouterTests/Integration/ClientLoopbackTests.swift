import Collector
import Foundation
import JSONCore
import XCTest

@testable import MetaRouter

/// `MetaRouterClient` with its own HTTP transport against the in-process collector.
final class ClientLoopbackTests: XCTestCase {
    func testEveryCallArrivesAtTheCollectorDespiteFailures() async throws {
        let dir = temporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let storePath = dir + "/events.ndjson"
        let server = CollectorServer(configuration: CollectorConfiguration(
            writeKey: "client-key", store: .ndjson(storePath), strict: true,
            faults: FaultConfiguration(seed: 5, failureRate: 0.2, failureStatus: 503, resetRate: 0.05)))
        _ = try await server.start()
        var options = ClientOptions(writeKey: "client-key", ingestionHost: await server.baseURL)
        options.delivery.retryFloor = .milliseconds(10)
        options.delivery.breaker.cooldown = .milliseconds(20)
        options.delivery.breaker.maxCooldown = .milliseconds(50)
        options.delivery.maxAttempts = 100
        options.delivery.maxBatchEvents = 40
        options.delivery.gzip = true
        options.diskQueuePath = dir + "/queue.v1.json"
        let client = try MetaRouterClient(options: options)

        await client.identify("user-1")
        for k in 0..<500 { await client.track("Step", properties: ["k": .number(JSONNumber(k))]) }
        await client.shutdown()
        let stats = await client.stats
        let collector = await server.stats()
        try await server.shutdown()

        XCTAssertEqual(stats.delivered, 501)
        XCTAssertEqual(stats.notDelivered, 0)
        XCTAssertTrue(stats.givenUp.isEmpty)
        XCTAssertEqual(collector.unique, 501)
        XCTAssertEqual(collector.invalid, 0)
        XCTAssertGreaterThan(collector.responses(503), 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/queue.v1.json"))
        // One identity, one lane: the stored order is the call order.
        let lines = try String(contentsOfFile: storePath, encoding: .utf8).split(separator: "\n")
        var seen = Set<String>()
        var ks: [Int] = []
        for line in lines {
            let e = try XCTUnwrap(JSONValue(parsing: String(line)).objectValue)
            guard seen.insert(e["messageId"]?.stringValue ?? "").inserted else { continue }
            XCTAssertEqual(e["userId"]?.stringValue, "user-1")
            if case .number(let n)? = e["properties"]?.objectValue?["k"], let k = n.intValue { ks.append(k) }
        }
        XCTAssertEqual(ks, Array(0..<500))
    }

    func testAWrongWriteKeyDisablesTheClient() async throws {
        let server = CollectorServer(configuration: CollectorConfiguration(writeKey: "right-key"))
        _ = try await server.start()
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var options = ClientOptions(writeKey: "wrong-key", ingestionHost: await server.baseURL)
        options.diskQueuePath = dir + "/queue.v1.json"
        let client = try MetaRouterClient(options: options)
        for k in 0..<5 { await client.track("E\(k)") }
        await client.drain()
        let disabledBy = await client.disabledBy
        XCTAssertEqual(disabledBy, 401)
        await client.track("Dropped")
        await client.shutdown()
        try await server.shutdown()
        let stats = await client.stats
        XCTAssertEqual(stats.notDelivered, 5)
        XCTAssertEqual(stats.droppedDisabled, 1)
        XCTAssertEqual(try DiskQueue(path: options.diskQueuePath!).load().events.count, 5)
    }
}
