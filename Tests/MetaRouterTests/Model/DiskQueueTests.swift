import Foundation
import JSONCore
import XCTest

@testable import MetaRouter

final class DiskQueueTests: XCTestCase {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    func event(_ id: String, daysAgo: Double = 0) -> Event {
        var e = Event.track("E")
        e.messageId = id
        e.timestamp = Timestamp.iso8601(now.addingTimeInterval(-daysAgo * 86_400))
        return e
    }

    func testSaveThenLoadRoundTripsOnDisk() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("dq-\(UUID())")
        defer { try? FileManager.default.removeItem(at: dir) }
        let queue = DiskQueue(path: dir.appendingPathComponent("disk-queue/queue.v1.json").path)
        let events = [event("a"), event("b")]
        try queue.save(events)
        let snapshot = try queue.load(now: now)
        XCTAssertEqual(snapshot.events, events)
        XCTAssertEqual(snapshot.version, 1)
        let text = try String(contentsOfFile: queue.path, encoding: .utf8)
        XCTAssertTrue(text.hasPrefix(#"{"version":1,"events":[{"type":"track""#))
        try queue.remove()
        XCTAssertEqual(try queue.load(now: now).events, [])
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("disk-queue").path)
        XCTAssertEqual(leftovers, [], "atomic writes leave no temporary files behind")
    }

    func testCorruptEventsAreSkippedNotTheFile() {
        let bytes = Array(#"{"version":1,"events":[{"type":"track","messageId":"a"},42,{"type":"nope"},{"messageId":"x"},{"type":"page","messageId":"b"}]}"#.utf8)
        let s = DiskQueue.decode(bytes)
        XCTAssertEqual(s.events.map(\.messageId), ["a", "b"])
        XCTAssertEqual(s.corrupt, 3)
    }

    func testTruncatedAndDamagedFilesKeepWhatCameBefore() {
        let cut = Array(#"{"version":1,"events":[{"type":"track","messageId":"a"},{"type":"page","messageId":"b"},{"type":"tra"#.utf8)
        let s = DiskQueue.decode(cut)
        XCTAssertEqual(s.events.map(\.messageId), ["a", "b"])
        XCTAssertEqual(s.corrupt, 1)
        let damaged = Array(#"{"version":1,"events":[{"type":"track","messageId":"a"},{"type":"x" "bad"},{"type":"page","messageId":"c"}]}"#.utf8)
        XCTAssertEqual(DiskQueue.decode(damaged).events.map(\.messageId), ["a", "c"])
    }

    func testUnknownVersionIsEmpty() {
        let s = DiskQueue.decode(Array(#"{"version":2,"events":[{"type":"track"}]}"#.utf8))
        XCTAssertEqual(s.events, [])
        XCTAssertEqual(s.version, 2)
        XCTAssertEqual(DiskQueue.decode(Array("garbage".utf8)).events, [])
    }

    func testSevenDayAgeCap() throws {
        let fs = InMemoryFileSystem()
        let queue = DiskQueue(path: "/q.json", maxAge: DiskQueue.sevenDays, fileSystem: fs)
        try queue.save([event("old", daysAgo: 8), event("recent", daysAgo: 6.9), event("new")])
        let s = try queue.load(now: now)
        XCTAssertEqual(s.events.map(\.messageId), ["recent", "new"])
        XCTAssertEqual(s.expired, 1)
        let uncapped = DiskQueue(path: "/q.json", maxAge: nil, fileSystem: fs)
        XCTAssertEqual(try uncapped.load(now: now).events.count, 3)
    }
}
