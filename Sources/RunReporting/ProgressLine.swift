import Foundation

/// What progress shows, from the run's counters: a pure state machine fed one snapshot per
/// tick, so its rates, percentages and ETA are tested without a clock or a terminal.
///
/// The share done is the share of input bytes read (compressed bytes for gzip inputs), overall
/// and for the input being read, where sizes are known (not for standard input). The ETA is the
/// bytes left over the byte rate of the last ``window`` of ticks (the first ticks of a run, or
/// of a resumed one, are not a rate yet); the event rate is over the same window.
package struct ProgressLine {
    /// One reading of the counters.
    package struct Snapshot {
        /// Seconds since the run started.
        var seconds: Double
        var bytesRead: UInt64
        var bytesTotal: UInt64
        var delivered: Int
        var deadLettered: Int
        var read: Int
        var retries: Int
        /// The input being read: its name, and its bytes read and size (nil when unknown).
        var input: (name: String, read: UInt64, size: UInt64?)?

        /// A snapshot of the counters `seconds` into the run.
        package init(
            seconds: Double, bytesRead: UInt64, bytesTotal: UInt64, delivered: Int, deadLettered: Int, read: Int,
            retries: Int, input: (name: String, read: UInt64, size: UInt64?)?
        ) {
            self.seconds = seconds
            self.bytesRead = bytesRead
            self.bytesTotal = bytesTotal
            self.delivered = delivered
            self.deadLettered = deadLettered
            self.read = read
            self.retries = retries
            self.input = input
        }
    }

    /// How many seconds of ticks the rates are taken over.
    let window: Double
    private var samples: [Snapshot] = []

    package init(window: Double = 10) { self.window = window }

    /// Takes a tick's snapshot; drops those older than the window (keeping the one just before it).
    package mutating func record(_ s: Snapshot) {
        samples.append(s)
        while samples.count > 2, samples[1].seconds <= s.seconds - window { samples.removeFirst() }
    }

    private var latest: Snapshot? { samples.last }

    /// Bytes and events per second over the window; nil until two ticks at least a second apart.
    package var rates: (bytes: Double, events: Double)? {
        guard let first = samples.first, let last = samples.last, last.seconds - first.seconds >= 1 else { return nil }
        let dt = last.seconds - first.seconds
        return (Double(last.bytesRead &- first.bytesRead) / dt, Double(last.delivered - first.delivered) / dt)
    }

    /// The share of input bytes read, 0...1, when the total is known.
    package var fraction: Double? {
        guard let s = latest, s.bytesTotal > 0 else { return nil }
        return min(1, Double(s.bytesRead) / Double(s.bytesTotal))
    }

    /// Seconds left at the window's byte rate; nil while it is not known.
    package var secondsLeft: Double? {
        guard let s = latest, s.bytesTotal > 0, let rate = rates?.bytes, rate > 0 else { return nil }
        return Double(s.bytesTotal - min(s.bytesRead, s.bytesTotal)) / rate
    }

    /// The line for a terminal, at most `width` columns.
    package func terminalLine(width: Int = 100) -> String {
        guard let s = latest else { return "" }
        var parts: [String] = []
        if let f = fraction { parts.append(Self.bar(f, cells: 20) + " " + String(format: "%5.1f%%", f * 100)) }
        parts.append("\(CountText.of(Int(rates?.events ?? 0))) ev/s")
        parts.append("\(CountText.of(s.delivered)) delivered")
        if s.deadLettered > 0 { parts.append("\(CountText.of(s.deadLettered)) dead-lettered") }
        if s.retries > 0 { parts.append("\(s.retries) retries") }
        parts.append("ETA " + (secondsLeft.map(Self.duration) ?? "…"))
        if let input = s.input, let size = input.size, size > 0 {
            parts.append("\(input.name) \(Int(min(1, Double(input.read) / Double(size)) * 100))%")
        }
        let line = parts.joined(separator: "  ")
        return line.count <= width ? line : String(line.prefix(width))
    }

    /// The figures of a log line (cron): share done, rate, counts and ETA.
    package var logMetadata: [String: String] {
        guard let s = latest else { return [:] }
        var m = [
            "events_per_second": "\(Int(rates?.events ?? 0))", "delivered": "\(s.delivered)",
            "dead_lettered": "\(s.deadLettered)", "retries": "\(s.retries)", "read": "\(s.read)",
            "eta": secondsLeft.map(Self.duration) ?? "unknown",
        ]
        if let f = fraction { m["percent"] = String(format: "%.1f", f * 100) }
        return m
    }

    /// `[#####-----]` with `cells` cells.
    static func bar(_ fraction: Double, cells: Int) -> String {
        let done = Int((fraction * Double(cells)).rounded(.down))
        return "[" + String(repeating: "#", count: done) + String(repeating: "-", count: cells - done) + "]"
    }

    /// `45s`, `12m 05s`, `3h 02m`.
    package static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        if s < 60 { return "\(s)s" }
        if s < 3600 { return String(format: "%dm %02ds", s / 60, s % 60) }
        return String(format: "%dh %02dm", s / 3600, (s % 3600) / 60)
    }
}
