import JSONCore
import XCTest

@testable import MetaRouter

final class BatchEncoderTests: XCTestCase {
    func testSplicesSentAtAndWriteKeyIntoEveryEventIncludingEmptyObjects() throws {
        let encoder = BatchEncoder(writeKey: #"k"ey"#)
        let events = [#"{}"#, #"{ }"#, #"{"a":[1,{"b":2}]}"#, "{\"c\":true}\n"].map {
            EncodedEvent(uncheckedBytes: Array($0.utf8), messageId: "m", orderingKey: nil, tag: 0)
        }
        let sentAt = "2026-11-22T06:50:53.123Z"
        let body = encoder.body(events, sentAt: sentAt)
        let root = try XCTUnwrap(JSONValue(parsing: body).objectValue)
        XCTAssertEqual(root["sentAt"]?.stringValue, sentAt)
        let batch = try XCTUnwrap(root["batch"]?.arrayValue)
        XCTAssertEqual(batch.count, 4)
        for e in batch {
            XCTAssertEqual(e.objectValue?["sentAt"]?.stringValue, sentAt)
            XCTAssertEqual(e.objectValue?["writeKey"]?.stringValue, #"k"ey"#)
        }
        XCTAssertEqual(batch[2].objectValue?["a"], [1, ["b": 2]])
        let sizes = events.map(encoder.sentSize(of:)).reduce(0, +)
        XCTAssertEqual(body.count, BatchEncoder.bodySize(eventSizes: sizes, count: events.count))
    }

    func testBodySizeOfEmptyBatchMatchesEncoding() {
        let encoder = BatchEncoder(writeKey: "w")
        XCTAssertEqual(encoder.body([EncodedEvent](), sentAt: "2026-11-22T06:50:53.123Z").count,
                       BatchEncoder.bodySize(eventSizes: 0, count: 0))
    }

    func testISO8601AndHTTPDate() {
        XCTAssertEqual(Timestamp.iso8601(Date(timeIntervalSince1970: 1_734_691_572.8435)), "2024-12-20T10:46:12.843Z")
        XCTAssertEqual(Timestamp.iso8601(Date(timeIntervalSince1970: 0)), "1970-01-01T00:00:00.000Z")
        XCTAssertEqual(Timestamp.iso8601(Date(timeIntervalSince1970: 951_782_400)), "2000-02-29T00:00:00.000Z")
        XCTAssertEqual(HTTPTime.parseHTTPDate("Sun, 06 Nov 1994 08:49:37 GMT")?.timeIntervalSince1970, 784_111_777)
        XCTAssertNil(HTTPTime.parseHTTPDate("Sunday, 06-Nov-94 08:49:37 GMT"))
        let now = Date(timeIntervalSince1970: 784_111_777 - 90)
        XCTAssertEqual(HTTPTime.retryAfter("Sun, 06 Nov 1994 08:49:37 GMT", now: now), .seconds(90))
        XCTAssertEqual(HTTPTime.retryAfter(" 120 ", now: now), .seconds(120))
        XCTAssertEqual(HTTPTime.retryAfter("Sun, 06 Nov 1994 08:49:37 GMT", now: now.addingTimeInterval(1000)), .zero)
        XCTAssertNil(HTTPTime.retryAfter("soon", now: now))
        XCTAssertNil(HTTPTime.retryAfter("-5", now: now))
    }
}
