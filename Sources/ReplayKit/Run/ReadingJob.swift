import Foundation
import MetaRouter

/// The reading side of a run, on its own thread: reads and enriches every line, records it in
/// the settlement tracker, hands events to the delivery side in chunks, and writes checkpoints.
///
/// `@unchecked Sendable` is safe here because the job is used by one thread at a time: the
/// reader thread while reading, then (after the runner has awaited the thread's end, which
/// orders the accesses) one checkpoint task while the engine drains, then the runner again
/// after that task was awaited. Its IdentityStore and Enricher are never used concurrently.
final class ReadingJob: @unchecked Sendable {
    let config: ReplayConfig
    let options: RunOptions
    let plan: ResumePlan
    let state: StateDirectory
    let runState: RunState
    let identity: IdentityStore
    let enricher: Enricher
    let stop: StopSignal
    let pipe: ChunkPipe
    var checkpoint: Checkpoint
    var lastCheckpoint = ContinuousClock.now
    static let chunkSize = 512
    /// Lines recorded in the tracker under one lock.
    static let recordBatch = 128

    init(
        config: ReplayConfig, options: RunOptions, plan: ResumePlan, state: StateDirectory, runState: RunState,
        identity: IdentityStore, checkpoint: Checkpoint, stop: StopSignal, pipe: ChunkPipe
    ) {
        self.config = config
        self.options = options
        self.plan = plan
        self.state = state
        self.runState = runState
        self.identity = identity
        self.enricher = Enricher(config: config, identity: identity)
        self.checkpoint = checkpoint
        self.stop = stop
        self.pipe = pipe
    }

    /// Where the reader renders events: the storage of the chunk being filled.
    let output = EventBuffer(capacity: ReadingJob.storageCapacity)
    /// Room for a chunk of typical events (the buffer grows when events are larger).
    static let storageCapacity = chunkSize * 512

    /// Reads everything (or until a stop), then closes the pipe. Returns why it stopped early, if it did.
    ///
    /// Events are rendered straight into the chunk's storage (``output``); `record` adds them to
    /// the chunk with their sequence numbers. A chunk is sent only right after every line read
    /// so far was recorded, so no line waiting to be recorded refers to storage that has gone.
    func read() throws -> (RunReport.Status, String)? {
        defer { pipe.finish() }
        var chunk = EventChunk()
        chunk.entries.reserveCapacity(Self.chunkSize)
        var lines: [ReadLine] = []
        lines.reserveCapacity(Self.recordBatch)
        var early: (RunReport.Status, String)?
        /// Records the lines read so far (one lock for all of them); false when the run must stop.
        func recordLines() -> Bool {
            if let failure = record(lines, into: &chunk) {
                early = (.stoppedTransient, failure)
                return false
            }
            lines.removeAll(keepingCapacity: true)
            return true
        }
        try LineWalker.walkRendered(
            inputs: plan.inputs.map(\.source), config: config, enricher: enricher, output: output, firstSequence: 0,
            resumeAt: plan.inputs.map(\.resumeAt),
            onInputEnd: { index in
                // Lines of this input are recorded before it is marked as read to the end.
                guard recordLines() else { return }
                self.runState.counters.withLock { _ = $0.endOfInput.insert(index) }
            }
        ) { item in
            if early != nil { return false }  // recording failed at the end of the last input
            if stop.isRequested {
                early = (.interrupted, "stopped by a signal")
                return false
            }
            if pipe.isClosed { return false }
            lines.append(ReadLine(item))
            if lines.count >= Self.recordBatch || item.sequence & 1023 == 0 {
                guard recordLines() else { return false }
                if chunk.entries.count >= Self.chunkSize {
                    try send(&chunk)
                } else if item.sequence & 1023 == 0 {
                    try checkpointIfDue()
                }
            }
            return true
        }
        if early == nil, !lines.isEmpty { _ = recordLines() }
        if !chunk.entries.isEmpty, early == nil { try send(&chunk) }
        return early
    }

    /// Hands a chunk (with the storage its events were rendered into) to the delivery side,
    /// writing checkpoints while it waits. Every line read so far must be recorded.
    private func send(_ chunk: inout EventChunk) throws {
        var events = chunk
        swap(&events.storage, &output.bytes)
        output.bytes.reserveCapacity(Self.storageCapacity)
        chunk.entries.removeAll(keepingCapacity: true)
        while !pipe.send(events, waitingUpTo: .seconds(1)) {
            try checkpointIfDue()
            if pipe.isClosed || stop.isRequested { return }
        }
        try checkpointIfDue()
    }

    private func checkpointIfDue() throws {
        let now = ContinuousClock.now
        guard now - lastCheckpoint >= options.checkpointInterval else { return }
        lastCheckpoint = now
        try saveCheckpoint()
    }

    /// Writes the checkpoint (and the identities learned before it) now.
    func saveCheckpoint() throws {
        try state.saveCheckpoint(&checkpoint, plan: plan, runState: runState, identity: identity)
    }

    /// Counts `lines` and records them in the tracker under one lock, appending the events to
    /// send to `chunk`. Returns why the run must stop (the dead-letter file failed), in which
    /// case the lines from the failed one on are not recorded, so the checkpoint cannot pass them.
    private func record(_ lines: [ReadLine], into chunk: inout EventChunk) -> String? {
        runState.counters.withLock { c -> String? in
            // By index: `for line in lines` would copy (retain and release) each line's storage.
            for i in lines.indices {
                if let failure = c.deadLetterError { return failure }
                let input = lines[i].input
                c.bytesRead = plan.inputs[input].bytesBefore + lines[i].fileBytesRead
                let lineNumber = lines[i].lineNumber, sequence = lines[i].sequence
                let endOffset = lines[i].settledOffset, settledThrough = lines[i].settledLineNumber
                func settledLine() {
                    let seq = c.tracker.append(input: input, endOffset: endOffset, lineNumber: settledThrough, settled: true)
                    precondition(seq == sequence, "reader and tracker disagree on the sequence")
                    c.lastSequence[input] = seq
                }
                switch lines[i].result {
                case .blank:
                    c.report.events.skippedBlank += 1
                    c.perInput[input].skippedBlank += 1
                    settledLine()
                case .deadLetter(let reason, let detail):
                    let raw = lines[i].raw ?? []
                    let written = raw.withUnsafeBufferPointer {
                        runState.writeDeadLetter(&c, input: input, line: lineNumber, reason: reason, detail: detail, raw: $0)
                    }
                    guard written else { return c.deadLetterError }
                    runState.countDeadLetter(&c, input: input, reason: reason)
                    c.report.events.read += 1
                    c.perInput[input].read += 1
                    settledLine()
                case .event(let range, let laneKey):
                    c.report.events.read += 1
                    c.perInput[input].read += 1
                    if let shard = options.shard, !shard.contains(laneKey: laneKey) {
                        c.report.events.filtered += 1
                        c.perInput[input].filtered += 1
                        settledLine()
                        continue
                    }
                    let seq = c.tracker.append(
                        input: input, endOffset: endOffset, lineNumber: settledThrough, settled: false)
                    precondition(seq == sequence, "reader and tracker disagree on the sequence")
                    c.lastSequence[input] = seq
                    c.inFlightEvents += 1
                    // Outcomes are matched by tag (the sequence number): the messageId is not
                    // handed to the engine, so no string crosses threads per event.
                    chunk.entries.append(EventChunk.Entry(range: range, laneKey: laneKey, tag: seq))
                }
            }
            return nil
        }
    }

    /// Runs `body` on a new reader thread and returns its result.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try body() })
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }
}
