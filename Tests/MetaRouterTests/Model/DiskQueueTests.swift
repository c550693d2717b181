import Foundation
import JSONCore
@_spi(PerLine) import MetaRouter
import MetaRouterTesting
import Testing
import Timestamps

@Suite struct DiskQueueTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    func event(_ id: String, daysAgo: Double = 0) -> Event {
        var e = Event.track("E")
        e.messageId = id
        e.timestamp = Timestamp.iso8601(now.addingTimeInterval(-daysAgo * 86_400))
        return e
    }

    @Test func saveThenLoadRoundTripsOnDisk() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("dq-\(UUID())")
        defer { try? FileManager.default.removeItem(at: dir) }
        let queue = DiskQueue(path: dir.appendingPathComponent("disk-queue/queue.v1.json").path)
        let events = [event("a"), event("b")]
        try queue.save(events)
        let snapshot = try queue.load(now: now)
        #expect(snapshot.events == events)
        #expect(snapshot.version == 1)
        let text = try String(contentsOfFile: queue.path, encoding: .utf8)
        #expect(text.hasPrefix(#"{"version":1,"events":[{"type":"track""#))
        try queue.remove()
        #expect(try queue.load(now: now).events == [])
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("disk-queue").path)
        #expect(leftovers == [], "atomic writes leave no temporary files behind")
    }

    @Test func corruptEventsAreSkippedNotTheFile() {
        let bytes = Array(
            #"{"version":1,"events":[{"type":"track","messageId":"a"},42,{"type":"nope"},{"messageId":"x"},{"type":"page","messageId":"b"}]}"#.utf8)
        let s = DiskQueue.decode(bytes)
        #expect(s.events.map(\.messageId) == ["a", "b"])
        #expect(s.corrupt == 3)
    }

    @Test func truncatedAndDamagedFilesKeepWhatCameBefore() {
        let cut = Array(#"{"version":1,"events":[{"type":"track","messageId":"a"},{"type":"page","messageId":"b"},{"type":"tra"#.utf8)
        let s = DiskQueue.decode(cut)
        #expect(s.events.map(\.messageId) == ["a", "b"])
        #expect(s.corrupt == 1)
        let damaged = Array(#"{"version":1,"events":[{"type":"track","messageId":"a"},{"type":"x" "bad"},{"type":"page","messageId":"c"}]}"#.utf8)
        #expect(DiskQueue.decode(damaged).events.map(\.messageId) == ["a", "c"])
    }

    @Test func unknownVersionIsEmpty() {
        let s = DiskQueue.decode(Array(#"{"version":2,"events":[{"type":"track"}]}"#.utf8))
        #expect(s.events == [])
        #expect(s.version == 2)
        #expect(DiskQueue.decode(Array("garbage".utf8)).events == [])
    }

    @Test func sevenDayAgeCap() throws {
        let fs = InMemoryFileSystem()
        let queue = DiskQueue(path: "/q.json", maxAge: DiskQueue.sevenDays, fileSystem: fs)
        try queue.save([event("old", daysAgo: 8), event("recent", daysAgo: 6.9), event("new")])
        let s = try queue.load(now: now)
        #expect(s.events.map(\.messageId) == ["recent", "new"])
        #expect(s.expired == 1)
        let uncapped = DiskQueue(path: "/q.json", maxAge: nil, fileSystem: fs)
        #expect(try uncapped.load(now: now).events.count == 3)
    }
}
