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
    /// Background preparers for a run: none unless `MR_REPLAY_WORKERS` asks for some. Delivery
    /// (engine, HTTP, and a local collector) needs the other cores; measured on 2 cores, one
    /// or two workers made end-to-end runs slower (see docs/benchmark.md).
    static var workers: Int {
        ProcessInfo.processInfo.environment["MR_REPLAY_WORKERS"] != nil ? LineWalker.defaultWorkers : 0
    }

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

    /// Reads everything (or until a stop), then closes the pipe. Returns why it stopped early, if it did.
    func read() throws -> (RunReport.Status, String)? {
        defer { pipe.finish() }
        var chunk: [EncodedEvent] = []
        chunk.reserveCapacity(Self.chunkSize)
        var early: (RunReport.Status, String)?
        try LineWalker.walk(
            inputs: plan.inputs.map(\.source), config: config, enricher: enricher, firstSequence: 0,
            resumeAt: plan.inputs.map(\.resumeAt), workers: Self.workers,
            onInputEnd: { index in self.runState.counters.withLock { _ = $0.endOfInput.insert(index) } }
        ) { item in
            if stop.isRequested {
                early = (.interrupted, "stopped by a signal")
                return false
            }
            if pipe.isClosed { return false }
            if let event = record(item) { chunk.append(event) }
            if let failure = runState.counters.withLock({ $0.deadLetterError }) {
                early = (.stoppedTransient, failure)
                return false
            }
            if chunk.count >= Self.chunkSize {
                try send(&chunk)
            } else if item.sequence & 1023 == 0 {
                try checkpointIfDue()
            }
            return true
        }
        if !chunk.isEmpty, early == nil { try send(&chunk) }
        return early
    }

    /// Hands a chunk to the delivery side, writing checkpoints while it waits.
    private func send(_ chunk: inout [EncodedEvent]) throws {
        let events = chunk
        chunk.removeAll(keepingCapacity: true)
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

    /// Counts one line and records it in the tracker; returns the event to send, if any.
    private func record(_ item: LineWalker.Item) -> EncodedEvent? {
        let input = item.inputIndex
        let line = item.line
        return runState.counters.withLock { c -> EncodedEvent? in
            c.bytesRead = plan.inputs[input].bytesBefore + line.fileBytesRead
            func settledLine() {
                let seq = c.tracker.append(input: input, endOffset: line.endOffset, lineNumber: line.lineNumber, settled: true)
                precondition(seq == item.sequence, "reader and tracker disagree on the sequence")
                c.lastSequence[input] = seq
            }
            switch item.result {
            case .blank:
                c.report.events.skippedBlank += 1
                c.perInput[input].skippedBlank += 1
                settledLine()
                return nil
            case .deadLetter(let reason, let detail):
                c.report.events.read += 1
                c.perInput[input].read += 1
                runState.deadLetter(&c, input: input, line: line.lineNumber, reason: reason, detail: detail, raw: line.bytes)
                settledLine()
                return nil
            case .event(let bytes, let messageId, let orderingKey):
                c.report.events.read += 1
                c.perInput[input].read += 1
                if let shard = options.shard, !shard.contains(identity: orderingKey) {
                    c.report.events.filtered += 1
                    c.perInput[input].filtered += 1
                    settledLine()
                    return nil
                }
                let seq = c.tracker.append(
                    input: input, endOffset: line.endOffset, lineNumber: line.lineNumber, settled: false, bytes: bytes)
                precondition(seq == item.sequence, "reader and tracker disagree on the sequence")
                c.lastSequence[input] = seq
                c.inFlightEvents += 1
                return EncodedEvent(uncheckedBytes: bytes, messageId: messageId, orderingKey: orderingKey, tag: seq)
            }
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
