import Foundation
@_spi(PerLine) import MetaRouter
import Testing

/// The streaming snapshot reader on whole, cut and damaged files, in both key orders.
struct SnapshotReaderTests {
    static let events = [
        #"{"type":"track","event":"A\/B","messageId":"1780000000000-6F0C3E2A-1B7D-4C9E-8A31-0D6F2B4C8E17","properties":{"n":9007199254740993,"s":"]},\"{"}}"#,
        #"{"type":"page","name":"P","context":{"library":{"name":"metarouter-ios","version":"1.4.2"},"app":{"version":"3.1"}}}"#,
        #"{"type":"identify","userId":"u-\u00e9","traits":{"a":[1,[2,{"b":null}]]}}"#,
    ]

    static func snapshot(eventsFirst: Bool, version: String = "1") -> [UInt8] {
        let list = "[" + events.joined(separator: ",") + "]"
        let text = eventsFirst ? #"{"events":\#(list),"version":\#(version)}"# : #"{"version":\#(version),"events":\#(list)}"#
        return Array(text.utf8)
    }

    static func walk(_ bytes: [UInt8], readSize: Int? = nil) throws -> (SnapshotReader.Summary, [String], [UInt8]) {
        var offset = 0
        // A source that hands over at most `readSize` bytes per read, to cut elements across reads.
        var reader = SnapshotReader { buffer in
            let n = min(buffer.count, bytes.count - offset, readSize ?? .max)
            bytes.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + n])) }
            offset += n
            return n
        }
        var elements: [String] = []
        var tail: [UInt8] = []
        let summary = try reader.walk(
            onEvent: {
                elements.append(String(decoding: $0.bytes, as: UTF8.self)); return true
            },
            onTail: { tail.append(contentsOf: $0) })
        return (summary, elements, tail)
    }

    @Test(arguments: [false, true], [nil, 1, 7])
    func intactFileGivesEveryEventInEitherKeyOrder(eventsFirst: Bool, readSize: Int?) throws {
        let (summary, elements, tail) = try Self.walk(Self.snapshot(eventsFirst: eventsFirst), readSize: readSize)
        #expect(elements == Self.events)
        #expect(summary.version == .integer(1))
        #expect(summary.isSupported && !summary.isDamaged && tail.isEmpty)
    }

    /// Every cut of the file gives back exactly the events wholly before the cut, and the bytes
    /// from the break to the cut: nothing is lost and nothing is counted twice.
    @Test(arguments: [false, true])
    func everyCutKeepsTheCompleteEventsAndTheRestWhole(eventsFirst: Bool) throws {
        let whole = Self.snapshot(eventsFirst: eventsFirst)
        let text = String(decoding: whole, as: UTF8.self)
        let ends = Self.events.map { e in text.utf8.count - text.components(separatedBy: e)[1].utf8.count }
        for cut in 1..<whole.count {
            let bytes = Array(whole[..<cut])
            let (summary, elements, tail) = try Self.walk(bytes, readSize: 5)
            let complete = ends.filter { $0 <= cut }.count
            #expect(elements == Array(Self.events.prefix(complete)), "cut at \(cut)")
            #expect(summary.isDamaged, "a cut file is damaged (cut at \(cut))")
            let breakAt = Int(summary.breakOffset ?? 0)
            #expect(tail == Array(bytes[breakAt...]), "the tail is the rest of the file (cut at \(cut))")
            #expect(summary.tailBytes == UInt64(cut - breakAt))
            if eventsFirst, complete < Self.events.count { #expect(summary.version == .missing) }
            #expect(summary.isSupported || summary.unsupportedReason != nil)
        }
    }

    @Test(arguments: ["2", "\"1\"", "1.0", "null"])
    func unknownVersionIsNotSupportedAndSaysWhichItFound(version: String) throws {
        for eventsFirst in [false, true] {
            let (summary, elements, _) = try Self.walk(Self.snapshot(eventsFirst: eventsFirst, version: version))
            #expect(elements.count == 3)
            #expect(!summary.isSupported)
            let reason = try #require(summary.unsupportedReason)
            #expect(reason.contains(version) && reason.contains("reads version 1"), "\(reason)")
        }
    }

    @Test func blankAndNonSnapshotContent() throws {
        let blank = try Self.walk(Array(" \n\t ".utf8)).0
        #expect(blank.isBlank && blank.unsupportedReason == nil && !blank.isDamaged)
        let ndjson = try Self.walk(Array("{\"version\":1,\"events\":[]}\n{\"a\":1}\n".utf8)).0
        #expect(ndjson.hasTrailingContent)
        let noEvents = try Self.walk(Array(#"{"version":1}"#.utf8)).0
        #expect(noEvents.isSupported && noEvents.elements == 0)
        let missing = try Self.walk(Array(#"{"events":[{"a":1}]}"#.utf8)).0
        #expect(!missing.isSupported, "an intact file without a version is not read as version 1")
        #expect(try Self.walk(Array("hello".utf8)).0.isSupported, "a damaged file is read for what it holds")
    }

    /// An element that is delimited but not JSON is handed over (its reader rejects it) and the
    /// walk goes on with the next one.
    @Test func aCorruptElementDoesNotStopTheWalk() throws {
        let text = #"{"version":1,"events":[{"a":1},{"b":tru},{"c":3}]}"#
        let (summary, elements, _) = try Self.walk(Array(text.utf8))
        #expect(elements == [#"{"a":1}"#, #"{"b":tru}"#, #"{"c":3}"#])
        #expect(!summary.isDamaged)
    }

    @Test func diskQueueReadsBothOrdersAndCountsTheBrokenRest() throws {
        let events = [
            #"{"type":"track","event":"A","anonymousId":"a","messageId":"m1","timestamp":"2026-11-20T00:00:00.000Z"}"#,
            #"{"type":"track","event":"B","anonymousId":"a","messageId":"m2","timestamp":"2026-11-20T00:00:01.000Z"}"#,
        ]
        let list = "[" + events.joined(separator: ",") + "]"
        for text in [#"{"version":1,"events":\#(list)}"#, #"{"events":\#(list),"version":1}"#] {
            let whole = DiskQueue.decode(Array(text.utf8))
            #expect(whole.events.count == 2 && whole.corrupt == 0 && whole.readable && !whole.damaged)
            let cut = DiskQueue.decode(Array(text.utf8.prefix(text.utf8.count - 30)))
            #expect(cut.events.count == 1 && cut.corrupt == 1 && cut.readable && cut.damaged, "\(text)")
        }
        let future = DiskQueue.decode(Array(#"{"version":2,"events":\#(list)}"#.utf8))
        #expect(future.events.isEmpty && !future.readable && future.version == 2)
    }
}
