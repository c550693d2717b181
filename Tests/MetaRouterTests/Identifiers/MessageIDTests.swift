import Foundation
@_spi(PerLine) import MetaRouter
import Testing

/// The one messageId writer: stable ids of replayed lines and fresh ids of new events.
struct MessageIDTests {
    @Test func uuidFormatting() {
        var out: [UInt8] = []
        MessageID.appendUUID(0x0123_4567_89AB_CDEF, 0xFEDC_BA98_7654_3210, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == "01234567-89ab-cdef-fedc-ba9876543210")
    }

    /// The stable messageId written straight into bytes is `"<millis>-<uuid>"`, with millis
    /// printed as Swift prints them (negative values and both extremes included) and a lowercase
    /// version-8 UUID.
    @Test(arguments: [0, 7, -1_000, 1_704_067_201_500, .max, .min] as [Int64])
    func quotedStableIdIsMillisThenUUID(millis: Int64) throws {
        let line = Array(#"{"type":"page"}"#.utf8)
        let text = line.withUnsafeBufferPointer { String(decoding: MessageID.quoted(line: $0, lineNumber: 3, millis: millis), as: UTF8.self) }
        #expect(text.hasPrefix("\"\(millis)-"), "\(text)")
        let uuidText = String(text.dropFirst("\"\(millis)-".count).dropLast())
        let uuid = try #require(UUID(uuidString: uuidText))
        #expect(uuid.uuidString.lowercased() == uuidText)
        #expect(Array(uuid.uuidString)[14] == "8")  // version 8
        #expect(
            Array(uuid.uuidString)[19] == "8" || Array(uuid.uuidString)[19] == "9" || Array(uuid.uuidString)[19] == "A"
                || Array(uuid.uuidString)[19] == "B")  // variant 10
    }

    /// Stable ids are pinned: the dedup contract needs every version to give these exact ids.
    @Test func stableIdsArePinned() {
        let line = Array(#"{"type":"track","event":"Paid","userId":"u-1","timestamp":"2024-01-01T00:00:00Z"}"#.utf8)
        let id = line.withUnsafeBufferPointer {
            String(decoding: MessageID.quoted(line: $0, lineNumber: 1, millis: 1_704_067_200_000), as: UTF8.self)
        }
        #expect(id == MessageIDTests.pinnedStableId, "\(id)")
    }

    /// The stable id of the line above (computed once; it must never change).
    static let pinnedStableId = "\"1704067200000-3c093a78-b591-80b3-bfa6-983b077db8a2\""

    /// Fresh ids are exactly `<millis>-<uuid.uuidString.lowercased()>`, for any UUID.
    @Test(arguments: 0..<50)
    func freshIdsMatchTheUUIDsLowercaseString(seed: Int) {
        let uuid = UUID()
        let millis = Int64(seed) * 1_234_567_891
        #expect(MessageID.make(epochMillis: millis, uuid: uuid) == "\(millis)-\(uuid.uuidString.lowercased())")
        #expect(MessageID.isWellFormed(MessageID.make(epochMillis: millis, uuid: uuid)))
    }

    @Test func freshIdTakesTheDatesMillis() throws {
        let uuid = try #require(UUID(uuidString: "6F0C7E85-1111-4222-8333-944455556666"))
        let id = MessageID.generate(at: Date(timeIntervalSince1970: 1_734_691_572.843), uuid: uuid)
        #expect(id == "1734691572843-6f0c7e85-1111-4222-8333-944455556666")
    }
}
