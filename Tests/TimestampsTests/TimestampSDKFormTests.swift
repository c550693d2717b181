import Testing
import Timestamps

/// The shortcut for the SDKs' own form (``Timestamp/sdkForm(_:)``) against the grammar it
/// shortcuts (``Timestamp/parseGrammar(_:strict:)``).
struct TimestampSDKFormTests {
    static func withBytes<R>(_ bytes: [UInt8], _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        bytes.withUnsafeBufferPointer(body)
    }

    /// Timestamps the SDKs write, at the edges of every field.
    static let written = [
        "2026-01-06T13:31:45.504Z", "1970-01-01T00:00:00.000Z", "1969-12-31T23:59:59.999Z", "0000-01-01T00:00:00.000Z",
        "9999-12-31T23:59:59.999Z", "2024-02-29T12:00:00.000Z", "2016-12-31T23:59:60.000Z", "2023-02-31T01:02:03.004Z",
        "1600-03-01T00:00:00.001Z", "2100-02-28T09:09:09.090Z",
    ]

    @Test func takesTheShortcutForWhatTheSDKsWrite() {
        for text in Self.written {
            let bytes = Array(text.utf8)
            let fast = Self.withBytes(bytes) { Timestamp.sdkForm($0) }
            let grammar = Self.withBytes(bytes) { Timestamp.parseGrammar($0, strict: false) }
            #expect(fast != nil, "\(text)")
            #expect(fast == grammar, "\(text)")
        }
    }

    @Test func agreesWithTheGrammarOnEveryOneByteChange() {
        // Each byte of each written timestamp replaced by bytes around every class the
        // separators and digits are told apart by.
        let replacements: [UInt8] =
            Array(0x2B...0x3B) + [0x00, 0x09, 0x20, 0x2A, 0x40, 0x53, 0x54, 0x55, 0x59, 0x5A, 0x5B, 0x74, 0x7A, 0x7F, 0x80, 0xB9, 0xBA, 0xC6, 0xFF]
        var checked = 0
        for text in Self.written {
            let original = Array(text.utf8)
            for position in original.indices {
                for byte in replacements {
                    var bytes = original
                    bytes[position] = byte
                    let fast = Self.withBytes(bytes) { Timestamp.sdkForm($0) }
                    let grammar = Self.withBytes(bytes) { Timestamp.parseGrammar($0, strict: false) }
                    let strict = Self.withBytes(bytes) { Timestamp.parseGrammar($0, strict: true) }
                    if let fast {
                        #expect(fast == grammar && fast == strict, "\(bytes)")
                    }
                    let parsed = Self.withBytes(bytes) { Timestamp.epochMillis(utf8: $0) }
                    #expect(parsed == grammar, "\(bytes)")
                    checked += 1
                }
            }
        }
        #expect(checked == Self.written.count * 24 * replacements.count)
    }

    @Test func refusesOtherLengthsAndForms() {
        for text in [
            "2026-01-06T13:31:45.50Z", "2026-01-06T13:31:45.5040Z", "2026-01-06t13:31:45.504Z", "2026-01-06T13:31:45.504z",
            "2026-01-06 13:31:45.504Z", "2026-01-06T13:31:45,504Z", "2026-13-06T13:31:45.504Z", "2026-00-06T13:31:45.504Z",
            "2026-01-00T13:31:45.504Z", "2026-01-32T13:31:45.504Z", "2026-01-06T24:31:45.504Z", "2026-01-06T13:60:45.504Z",
            "2026-01-06T13:31:61.504Z",
        ] {
            let bytes = Array(text.utf8)
            #expect(Self.withBytes(bytes) { Timestamp.sdkForm($0) } == nil, "\(text)")
        }
    }

    @Test func readsBackWhatItFormatsForEveryYear() {
        var rng = SystemRandomNumberGenerator()
        // Years 0 to 9999, as milliseconds since 1970.
        let range: ClosedRange<Int64> = -62_167_219_200_000...253_402_300_799_999
        for _ in 0..<20_000 {
            let millis = Int64.random(in: range, using: &rng)
            let bytes = Array(Timestamp.iso8601(epochMillis: millis).utf8)
            #expect(Self.withBytes(bytes) { Timestamp.sdkForm($0) } == millis, "\(millis)")
            #expect(Self.withBytes(bytes) { Timestamp.parseGrammar($0, strict: true) } == millis, "\(millis)")
        }
    }
}
