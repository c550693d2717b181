import Foundation
import Logging

/// Shows progress: a live line on a terminal, or one log line every 10 seconds otherwise (cron).
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
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            if Task.isCancelled { break }
            let snapshot = state.counters.withLock { c in
                (c.report.events.delivered, c.report.events.deadLettered, c.report.events.read, c.bytesRead, c.bytesTotal)
            }
            let elapsed = Double((clock.now - start).components.seconds) + 1e-9
            let rate = Double(snapshot.0) / elapsed
            var eta = "?"
            if snapshot.4 > 0, snapshot.3 > 0 {
                let remaining = Double(snapshot.4 - min(snapshot.3, snapshot.4)) / (Double(snapshot.3) / elapsed)
                eta = "\(Int(remaining))s"
            }
            let retried = await retries()
            let text =
                "\(Int(rate)) ev/s, \(snapshot.0) delivered, \(snapshot.1) dead-lettered, \(retried) retries, "
                + "\(snapshot.2) read, ETA \(eta)"
            if live {
                FileHandle.standardError.write(Data("\r\u{1B}[2K\(text)".utf8))
            } else {
                logger.info(
                    "progress",
                    metadata: [
                        "events_per_second": "\(Int(rate))", "delivered": "\(snapshot.0)",
                        "dead_lettered": "\(snapshot.1)", "retries": "\(retried)", "read": "\(snapshot.2)",
                        "eta": "\(eta)",
                    ])
            }
        }
        if live { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
    }
}
