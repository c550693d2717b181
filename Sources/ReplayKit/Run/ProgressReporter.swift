import Foundation
import Logging
import RunReporting

/// Shows progress (``ProgressLine``): on a terminal, one live line with a bar of the input bytes
/// read, the share of the current input, the delivered rate and an ETA from the byte rate,
/// redrawn every second; otherwise (cron) one log line with the same figures every 10 seconds.
struct ProgressReporter: Sendable {
    let mode: ProgressMode
    let state: RunState
    let logger: Logger
    /// Reads the engine's retry count.
    let retries: @Sendable () async -> Int

    /// Reports until the calling task is cancelled.
    func run() async {
        let interactive = isatty(STDERR_FILENO) == 1
        let interval: Duration
        switch mode {
        case .off: return
        case .log(let every): interval = every
        case .automatic: interval = interactive ? .seconds(1) : .seconds(10)
        }
        let live = interactive && mode == .automatic
        let clock = ContinuousClock()
        let start = clock.now
        var line = ProgressLine()
        line.record(await snapshot(seconds: 0))
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            if Task.isCancelled { break }
            let elapsed = clock.now - start
            line.record(await snapshot(seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18))
            if live {
                FileHandle.standardError.write(Data("\r\u{1B}[2K\(line.terminalLine(width: Self.terminalWidth()))".utf8))
            } else {
                logger.info("progress", metadata: line.logMetadata.mapValues { .string($0) })
            }
        }
        if live { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
    }

    /// The counters now, with the bytes a resumed plain input starts past counted as read.
    private func snapshot(seconds: Double) async -> ProgressLine.Snapshot {
        let retried = await retries()
        return state.counters.withLock { c in
            let span = c.currentInput < c.inputSpans.count ? c.inputSpans[c.currentInput] : nil
            let read = c.bytesRead + (span?.skipped ?? 0)
            return ProgressLine.Snapshot(
                seconds: seconds, bytesRead: read, bytesTotal: c.bytesTotal, delivered: c.report.events.delivered,
                deadLettered: c.report.events.deadLettered, read: c.report.events.read, retries: retried,
                input: span.map { ($0.name, read > $0.start ? read - $0.start : 0, $0.size) })
        }
    }

    /// The terminal's width in columns (100 when it cannot be told).
    private static func terminalWidth() -> Int {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 20 else { return 100 }
        return Int(size.ws_col) - 1
    }
}
