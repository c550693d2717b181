import Foundation
import JSONCore
@_spi(PerLine) import MetaRouter
import NIOCore
import Testing
import Timestamps

@_spi(PerLine) @testable import MetaRouterDelivery

@Suite struct BatchEncoderTests {
    @Test func splicesSentAtAndWriteKeyIntoEveryEventIncludingEmptyObjects() throws {
        let encoder = BatchEncoder(writeKey: #"k"ey"#)
        let events = [#"{}"#, #"{ }"#, #"{"a":[1,{"b":2}]}"#, "{\"c\":true}\n"].map {
            EncodedEvent(uncheckedBytes: Array($0.utf8), messageId: "m", orderingKey: nil, tag: 0)
        }
        let sentAt = "2026-11-22T06:50:53.123Z"
        let body = encoder.body(events, sentAt: sentAt)
        let root = try #require(JSONValue(parsing: body).objectValue)
        #expect(root["sentAt"]?.stringValue == sentAt)
        let batch = try #require(root["batch"]?.arrayValue)
        #expect(batch.count == 4)
        for e in batch {
            #expect(e.objectValue?["sentAt"]?.stringValue == sentAt)
            #expect(e.objectValue?["writeKey"]?.stringValue == #"k"ey"#)
        }
        #expect(batch[2].objectValue?["a"] == [1, ["b": 2]])
        let sizes = events.map(encoder.sentSize(of:)).reduce(0, +)
        #expect(body.count == BatchEncoder.bodySize(eventSizes: sizes, count: events.count))
    }

    @Test func bodySizeOfEmptyBatchMatchesEncoding() {
        let encoder = BatchEncoder(writeKey: "w")
        #expect(encoder.body([EncodedEvent](), sentAt: "2026-11-22T06:50:53.123Z").count == BatchEncoder.bodySize(eventSizes: 0, count: 0))
    }

    @Test func iSO8601AndHTTPDate() {
        #expect(Timestamp.iso8601(Date(timeIntervalSince1970: 1_734_691_572.8435)) == "2024-12-20T10:46:12.843Z")
        #expect(Timestamp.iso8601(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp.iso8601(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00.000Z")
        #expect(HTTPTime.parseHTTPDate("Sun, 06 Nov 1994 08:49:37 GMT")?.timeIntervalSince1970 == 784_111_777)
        #expect(HTTPTime.parseHTTPDate("Sunday, 06-Nov-94 08:49:37 GMT") == nil)
        let now = Date(timeIntervalSince1970: 784_111_777 - 90)
        #expect(HTTPTime.retryAfter("Sun, 06 Nov 1994 08:49:37 GMT", now: now) == .seconds(90))
        #expect(HTTPTime.retryAfter(" 120 ", now: now) == .seconds(120))
        #expect(HTTPTime.retryAfter("Sun, 06 Nov 1994 08:49:37 GMT", now: now.addingTimeInterval(1000)) == .zero)
        #expect(HTTPTime.retryAfter("soon", now: now) == nil)
        #expect(HTTPTime.retryAfter("-5", now: now) == nil)
    }

    /// The buffer a lean transport sends holds exactly the bytes of the array body, and a
    /// restamped buffer is byte for byte the body written with the new `sentAt`.
    @Test func aBufferBodyIsTheArrayBodyAndARestampIsAFreshBody() {
        let encoder = BatchEncoder(writeKey: "wk")
        let texts = [#"{}"#, #"{ }"#, #"{"a":[1,{"b":2}]}"#, "{\"c\":true}\n", #"{"d":"}"}"#]
        let events = texts.map { SpliceableEvent(bytes: Array($0.utf8)) }
        let first = "2026-11-22T06:50:53.123Z", later = "2026-11-22T06:51:03.999Z"
        var buffer = ByteBufferAllocator().buffer(capacity: 0)
        buffer.writeString("prefix that was read")
        buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
        encoder.write(events, sentAt: first, into: &buffer)
        #expect(Array(buffer.readableBytesView) == encoder.body(events, sentAt: first))
        encoder.restamp(&buffer, events: events, sentAt: later)
        #expect(Array(buffer.readableBytesView) == encoder.body(events, sentAt: later))
        #expect(buffer.readableBytes == encoder.bodySize(events))
    }
}
