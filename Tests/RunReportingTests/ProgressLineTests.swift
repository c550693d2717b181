import RunReporting
import Testing

/// What progress shows, from snapshots of the counters (no clock, no terminal).
struct ProgressLineTests {
    static func snapshot(_ seconds: Double, bytes: UInt64, total: UInt64 = 1_000, delivered: Int = 0) -> ProgressLine.Snapshot {
        ProgressLine.Snapshot(
            seconds: seconds, bytesRead: bytes, bytesTotal: total, delivered: delivered, deadLettered: 0, read: delivered,
            retries: 0, input: ("part-01.ndjson", bytes, total))
    }

    @Test func halfwayThroughATwoSecondRunTheETAIsTheSecondLeft() {
        var line = ProgressLine()
        line.record(Self.snapshot(0, bytes: 0))
        line.record(Self.snapshot(1, bytes: 500, delivered: 2_000))
        #expect(line.fraction == 0.5)
        #expect(line.secondsLeft == 1, "500 bytes left at 500 bytes/s")
        let text = line.terminalLine()
        #expect(text.hasPrefix("[##########----------]  50.0%"), "\(text)")
        #expect(text.contains("2,000 ev/s") && text.contains("2,000 delivered") && text.contains("ETA 1s"), "\(text)")
        #expect(text.contains("part-01.ndjson 50%"), "\(text)")
    }

    @Test func beforeASecondOfTicksThereIsNoRateAndNoETA() {
        var line = ProgressLine()
        line.record(Self.snapshot(0, bytes: 0))
        line.record(Self.snapshot(0.5, bytes: 400))
        #expect(line.rates == nil && line.secondsLeft == nil)
        #expect(line.terminalLine().contains("ETA …"))
        #expect(line.logMetadata["eta"] == "unknown" && line.logMetadata["percent"] == "40.0")
    }

    @Test func theRateIsTheWindowsNotTheWholeRuns() {
        var line = ProgressLine(window: 10)
        line.record(Self.snapshot(0, bytes: 0, total: 100_000))
        line.record(Self.snapshot(20, bytes: 2_000, total: 100_000))  // a slow start
        line.record(Self.snapshot(30, bytes: 12_000, total: 100_000))  // now 1,000 bytes/s
        #expect(line.rates?.bytes == 1_000)
        #expect(line.secondsLeft == 88)
        #expect(ProgressLine.duration(88) == "1m 28s" && ProgressLine.duration(7_300) == "2h 01m")
    }

    @Test func withoutAKnownSizeThereIsNoBarOrETA() {
        var line = ProgressLine()
        line.record(Self.snapshot(0, bytes: 0, total: 0))
        line.record(Self.snapshot(2, bytes: 4_000, total: 0, delivered: 10))
        #expect(line.fraction == nil && line.secondsLeft == nil)
        #expect(!line.terminalLine().contains("[") && line.terminalLine().contains("5 ev/s"))
    }
}
