import Foundation
@_spi(PerLine) import MetaRouter
import Synchronization

/// The run's shared, mutable state: settlement, counters and the dead-letter sink.
///
/// The reading task and the engine's outcome callback both touch it, so it lives behind one mutex.
final class RunState: Sendable {
    struct Counters {
        var tracker = SettlementTracker()
        var report = RunReport()
        var perInput: [RunReport.Input] = []
        /// The last sequence number given to each input's lines so far, by input index (nil:
        /// none yet); once the input is read to the end, its last line's.
        var lastSequence: [UInt64?] = []
        var endOfInput: Set<Int> = []
        var inFlightEvents = 0
        var bytesRead: UInt64 = 0
        var bytesTotal: UInt64 = 0
        /// The input being read (its index), and where each input's bytes lie in `bytesRead`.
        var currentInput = 0
        var inputSpans: [InputSpan] = []
        var deadLetterError: String?
    }

    let counters: Mutex<Counters>
    let deadLetters: Mutex<DeadLetterWriter>
    /// The problem batches, appended to the batch journal as they end.
    let journal: Mutex<BatchJournal>
    /// The run over time, for `report.html`.
    let timeline = Mutex(RunTimeline())
    let inputPaths: [String]

    /// A run's state over `inputs`. Without `journalPath`, problem batches are kept for the
    /// report only.
    init(inputs: [String], deadLetters: sending DeadLetterWriter, journalPath: String? = nil) {
        var c = Counters()
        c.perInput = inputs.map { RunReport.Input(path: $0) }
        c.lastSequence = Array(repeating: nil, count: inputs.count)
        counters = Mutex(c)
        self.deadLetters = Mutex(deadLetters)
        journal = Mutex(BatchJournal(path: journalPath))
        inputPaths = inputs
    }

    /// Writes one dead letter (not counted: see ``countDeadLetter(_:input:reason:)``). A dead letter
    /// that cannot be written must stop the run, never vanish: on failure the error is kept for
    /// the report and false is returned.
    func writeDeadLetter(_ c: inout Counters, input: Int, line: Int, reason: String, detail: String, raw: UnsafeBufferPointer<UInt8>) -> Bool {
        do {
            try deadLetters.withLock {
                try $0.write(reason: reason, detail: detail, source: inputPaths[input], line: line, raw: Array(raw))
            }
            return true
        } catch {
            c.deadLetterError = "cannot write the dead-letter file: \(error)"
            return false
        }
    }

    /// Counts one dead letter.
    func countDeadLetter(_ c: inout Counters, input: Int, reason: String) {
        c.report.events.deadLettered += 1
        c.perInput[input].deadLettered += 1
        c.report.deadLetterReasons[reason, default: 0] += 1
    }

    /// Applies engine outcomes: delivered events are counted, given-up events dead-lettered.
    /// Not-delivered events stay unsettled, so the checkpoint never passes them.
    func apply(_ outcomes: [EventOutcome]) {
        counters.withLock { c in
            // By index: `for outcome in outcomes` would copy each outcome (its result and bytes).
            for i in outcomes.indices {
                switch outcomes[i].result {
                case .delivered:
                    guard let input = c.tracker.settle(outcomes[i].tag) else { continue }
                    c.inFlightEvents -= 1
                    c.report.events.delivered += 1
                    c.perInput[input].delivered += 1
                case .gaveUp(let giveUp, let detail):
                    let reason = giveUp.rawValue
                    let outcome = outcomes[i]
                    guard let entry = c.tracker.entry(outcome.tag), !entry.settled else { continue }
                    // Written first: an event whose dead letter cannot be written stays unsettled
                    // (reported pending, never passed by the checkpoint), and the run stops.
                    let bytes = outcome.givenUpBytes ?? []
                    let written = bytes.withUnsafeBufferPointer {
                        writeDeadLetter(&c, input: entry.input, line: entry.lineNumber, reason: reason, detail: detail, raw: $0)
                    }
                    guard written else { continue }
                    c.tracker.settle(outcome.tag)
                    c.inFlightEvents -= 1
                    countDeadLetter(&c, input: entry.input, reason: reason)
                case .notDelivered:
                    continue
                }
            }
        }
    }
}

/// Where one input's bytes lie in a run's byte count, for progress.
struct InputSpan: Sendable {
    /// The input's file name.
    var name: String
    /// Bytes of the inputs before it.
    var start: UInt64
    /// Its size, when known.
    var size: UInt64?
    /// Bytes of it not read by this run because it resumes past them (a plain file is read
    /// from its checkpoint on; its reader counts from there).
    var skipped: UInt64
}
