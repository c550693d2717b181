import Foundation
@_spi(PerLine) import MetaRouterDelivery
import RunReporting
import Synchronization
import SystemIO

/// The run's shared, mutable state: settlement, counters and the dead-letter sink.
///
/// The reading task and the engine's outcome callback both touch it, so it lives behind one mutex.
package final class RunState: Sendable {
    package struct Counters {
        package var tracker = SettlementTracker()
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
        /// The acknowledgment log (nil: none is kept, as for tests of the counters alone).
        var acks: AckLog?
        /// The messageIds of snapshot events not yet passed by the watermark, by sequence number:
        /// the acknowledgment log keeps those that settle past it until a checkpoint commits them.
        var snapshotIds: [UInt64: String] = [:]
        /// What the reading thread used, taken as it ends (for the report's `resources`).
        var readingThreadCPU: CPUUsage?
    }

    package let counters: Mutex<Counters>
    let deadLetters: Mutex<DeadLetterWriter>
    /// The problem batches, appended to the batch journal as they end.
    let journal: Mutex<BatchJournal>
    /// The run over time, for `report.html`.
    let timeline = Mutex(RunTimeline())
    let inputPaths: [String]

    /// A run's state over `inputs`. Without `journalPath`, problem batches are kept for the
    /// report only; without `acks`, acknowledgments are not logged.
    package init(inputs: [String], deadLetters: sending DeadLetterWriter, journalPath: String? = nil, acks: sending AckLog? = nil) {
        var c = Counters()
        c.perInput = inputs.map { RunReport.Input(path: $0) }
        c.lastSequence = Array(repeating: nil, count: inputs.count)
        c.acks = acks
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
    /// Not-delivered events stay unsettled, so the checkpoint never passes them. The lines they
    /// settle go to the acknowledgment log in one write, after the dead-letter file.
    func apply(_ outcomes: [EventOutcome]) {
        counters.withLock { c in
            // Read once: reading the log's reference per event retained and released it each time.
            let acks = c.acks
            // By index: `for outcome in outcomes` would copy each outcome (its result and bytes).
            for i in outcomes.indices {
                switch outcomes[i].result {
                case .delivered:
                    guard let (input, line) = c.tracker.settleLine(outcomes[i].tag) else { continue }
                    c.inFlightEvents -= 1
                    c.report.events.delivered += 1
                    c.perInput[input].delivered += 1
                    noteAcknowledged(c, acks, tag: outcomes[i].tag, input: input, completedLine: line)
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
                    guard written, let (input, line) = c.tracker.settleLine(outcome.tag) else { continue }
                    c.inFlightEvents -= 1
                    countDeadLetter(&c, input: input, reason: reason)
                    noteAcknowledged(c, acks, tag: outcome.tag, input: input, completedLine: line)
                case .notDelivered:
                    continue
                }
            }
            writeAcknowledgments(&c)
        }
    }

    /// Stages a settled event's line (when it completed one) and, for a snapshot, its messageId
    /// in the acknowledgment log.
    @inline(__always)
    private func noteAcknowledged(_ c: borrowing Counters, _ acks: AckLog?, tag: UInt64, input: Int, completedLine: Int?) {
        guard let acks else { return }
        if let completedLine { acks.stage(input: input, line: completedLine) }
        if !c.snapshotIds.isEmpty, let id = c.snapshotIds[tag] { acks.stage(input: input, messageId: id) }
    }

    /// Writes the staged acknowledgments, once every dead letter written before them is in its
    /// file: a logged line is never read again, so its dead letters must not wait in a buffer.
    /// When the dead-letter file cannot be written, nothing is logged and the run stops.
    func writeAcknowledgments(_ c: inout Counters) {
        guard let acks = c.acks else { return }
        do {
            try deadLetters.withLock { try $0.flush() }
        } catch {
            c.deadLetterError = c.deadLetterError ?? "cannot write the dead-letter file: \(error)"
            acks.discardStaged()
            return
        }
        acks.write()
    }

    /// What a checkpoint is made of, taken at one moment under the counters' lock.
    struct CheckpointSnapshot {
        var watermark: UInt64
        var positions: InputPositions
        var ended: Set<Int>
        var lastSequence: [UInt64?]
        var delivered: Int
        var pastWatermark: [Int: SettledLines]
        /// The acknowledgment log's files this checkpoint covers, to remove once it is committed.
        var coveredAckFiles: [String]
    }

    /// Takes a checkpoint's snapshot: the watermark, the settled positions and the lines settled
    /// past the watermark; starts the acknowledgment log's next generation at the same moment,
    /// carrying into it the messageIds of snapshot events settled past the watermark (the
    /// identity store commits only those before it); and writes out the dead letters, so that
    /// every line the checkpoint passes or lists is delivered or in the dead-letter file.
    func checkpointSnapshot() throws -> CheckpointSnapshot {
        try counters.withLock { c in
            let snapshot = CheckpointSnapshot(
                watermark: c.tracker.watermark, positions: c.tracker.positions, ended: c.endOfInput,
                lastSequence: c.lastSequence, delivered: c.report.events.delivered,
                pastWatermark: c.tracker.settledPastWatermark(), coveredAckFiles: c.acks?.rotate() ?? [])
            try deadLetters.withLock { try $0.flush() }
            if !c.snapshotIds.isEmpty {
                for (tag, id) in c.snapshotIds {
                    if tag < snapshot.watermark {
                        c.snapshotIds[tag] = nil
                    } else if let entry = c.tracker.entry(tag), entry.settled {
                        c.acks?.stage(input: entry.input, messageId: id)
                    }
                }
                c.acks?.write()
            }
            return snapshot
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
