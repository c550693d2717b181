import Testing
import Timestamps

/// The one timestamp parser (``Timestamp``), as the enrichment rules and the client use it.
struct TimestampTests {
    static func millis(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { Timestamp.epochMillis(utf8: $0) }
    }

    @Test(
        arguments: [
            ("1970-01-01T00:00:00Z", 0),
            ("2024-01-01T00:00:01.5Z", 1_704_067_201_500),
            ("2024-01-01T01:00:01.5+01:00", 1_704_067_201_500),
            ("2023-12-31T19:00:01.500123-0500", 1_704_067_201_500),
            ("2024-01-01 00:00:01.500", 1_704_067_201_500),
            ("2024-01-01t00:00:01,5z", 1_704_067_201_500),
            ("2024-02-29T12:00:00Z", 1_709_208_000_000),
            ("2024-12-20T10:46:12.843456Z", 1_734_691_572_843),
            ("2024-12-20T11:46:12.843+01", 1_734_691_572_843),
            ("2024-12-20T10:46Z", 1_734_691_560_000),
            ("2024-01-01", 1_704_067_200_000),
            ("1969-12-31T23:59:59.000Z", -1000),
            // A leap second counts as the next minute's second 0.
            ("2016-12-31T23:59:60Z", 1_483_228_800_000),
        ] as [(String, Int64)])
    func parsesEveryAcceptedForm(text: String, expected: Int64) {
        #expect(Self.millis(text) == expected, "\(text)")
    }

    @Test(arguments: [
        "", "yesterday", "2024-13-01T00:00:00Z", "2024-01-32", "2024-01-01T24:00:00Z", "2024-01-01T00:60:00Z",
        "2024-01-01T00:00:61Z", "2024-01-01T00:00:00.Z", "2024-01-01T00:00:00+1", "2024-01-01T00:00:00+24:00",
        "2024-01-01T00:00:00+01:60", "2024-01-01T00:00:00+01:", "2024-01-01T00:00:00Zjunk", "2024-01-01T", "2024-01-01T00",
        "2024-01-01Z", "20240101T000000Z",
    ])
    func rejectsWhatIsNotATimestamp(text: String) {
        #expect(Self.millis(text) == nil, "\(text)")
    }

    @Test(arguments: [0, 1_704_067_201_500, 1_700_000_000_123, 951_782_400_000, -1] as [Int64])
    func formatRoundTrips(millis: Int64) {
        #expect(Self.millis(Timestamp.iso8601(epochMillis: millis)) == millis)
        #expect(Timestamp.epochMillis(Timestamp.iso8601(epochMillis: millis)) == millis)
    }

    @Test func formatsUTCWithMilliseconds() {
        #expect(Timestamp.iso8601(epochMillis: 0) == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp.iso8601(epochMillis: -1) == "1969-12-31T23:59:59.999Z")
        #expect(Timestamp.iso8601(epochMillis: -62_167_219_200_000) == "0000-01-01T00:00:00.000Z")
        #expect(Timestamp.iso8601(epochMillis: 253_402_300_799_999) == "9999-12-31T23:59:59.999Z")
        // Outside years 0...9999 the fields are written as wide as they need.
        #expect(Timestamp.iso8601(epochMillis: 253_402_300_800_000) == "10000-01-01T00:00:00.000Z")
        #expect(Timestamp.iso8601(epochMillis: -62_167_219_200_001) == "00-1-12-31T23:59:59.999Z")
    }

    /// Every field of the 24-byte form, against the calendar fields written out with padding, for
    /// instants spread over years 0...9999 (and each one's neighbours, across a day's end).
    @Test func formatsEveryFieldWithItsWidth() {
        var state: UInt64 = 20_261_127
        for _ in 0..<20_000 {
            // SplitMix64: deterministic, so a failure reproduces.
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = (state ^ (state >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            let base = Int64((z ^ (z >> 31)) % 315_537_897_600_000) - 62_167_219_200_000
            for millis in [base, base - base % 86_400_000, base - base % 86_400_000 - 1] {
                let text = Timestamp.iso8601(epochMillis: millis)
                #expect(text.utf8.count == 24, "\(millis)")
                #expect(Self.millis(text) == millis, "\(text)")
                #expect(text == Self.written(millis), "\(millis)")
            }
        }
    }

    /// `millis` formatted field by field, each padded to its width with zeros: the reference.
    static func written(_ millis: Int64) -> String {
        var days = millis / 86_400_000, ms = millis % 86_400_000
        if ms < 0 { (days, ms) = (days - 1, ms + 86_400_000) }
        let (y, m, d) = CivilCalendar.civil(fromDays: days)
        func pad(_ v: Int64, _ n: Int) -> String { String(repeating: "0", count: max(0, n - String(v).count)) + String(v) }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(ms / 3_600_000, 2)):\(pad(ms / 60_000 % 60, 2)):"
            + "\(pad(ms / 1000 % 60, 2)).\(pad(ms % 1000, 3))Z"
    }

    @Test(arguments: [
        "2024-01-01T00:00:01Z", "2024-01-01t00:00:01z", "2024-01-01T00:00:01.5Z", "2024-01-01T00:00:01.500123+01:00",
        "2024-01-01T00:00:01-0500", "2016-12-31T23:59:60Z",
    ])
    func internetDateTimesAreTimestamps(text: String) {
        #expect(Timestamp.isInternetDateTime(text), "\(text)")
        #expect(Self.millis(text) != nil, "\(text): the strict form is part of the one grammar")
    }

    @Test(arguments: [
        // Timestamps, but not internet date-times: no time, no seconds, a space, a comma, no zone, hours alone.
        "2024-01-01", "2024-01-01T00:00Z", "2024-01-01 00:00:01Z", "2024-01-01T00:00:01,5Z", "2024-01-01T00:00:01",
        "2024-01-01T00:00:01+01",
        // Not timestamps at all.
        "", "2024-13-01T00:00:00Z", "2024-01-01T00:00:00.Z", "2024-01-01T00:00:00+01:60", "2024-01-01T00:00:00Zjunk",
    ])
    func refusesWhatIsNotAnInternetDateTime(text: String) {
        #expect(!Timestamp.isInternetDateTime(text), "\(text)")
    }
}
