import Foundation
@_spi(PerLine) import MetaRouterDelivery
import ReplayConfiguration
import RunReporting
import SystemIO

/// The reading side of a run, on its own thread: reads and enriches every line, records it in
/// the settlement tracker, hands events to the delivery side in chunks, and writes checkpoints.
///
/// `@unchecked Sendable` is safe here because the job is used by one thread at a time: the
/// reader thread while reading, then (after the runner has awaited the thread's end, which
/// orders the accesses) one checkpoint task while the engine drains, then the runner again
/// after that task was awaited. Its IdentityStore and Enricher are never used concurrently.
package final class ReadingJob: @unchecked Sendable {
    let config: ReplayConfig
    let options: RunOptions
    let plan: ResumePlan
    let state: StateDirectory
    let runState: RunState
    let identity: IdentityStore
    let enricher: Enricher
    let stop: StopSignal
    let pipe: ChunkPipe
    /// Hears each warning about an input as it is found (the runner logs it).
    let onWarning: @Sendable (String) -> Void
    var checkpoint: Checkpoint
    var lastCheckpoint = ContinuousClock.now
    /// The store's uncommitted mappings right after the last checkpoint (those of lines still
    /// in flight then): a checkpoint is also due once ``RunOptions/mappingsPerCheckpoint`` more
    /// were learned, where a second of a fast backfill learns several times as many.
    var uncommittedAfterCheckpoint = 0
    static let chunkSize = 512
    /// Lines recorded in the tracker under one lock.
    static let recordBatch = 128

    init(
        config: ReplayConfig, options: RunOptions, plan: ResumePlan, state: StateDirectory, runState: RunState,
        identity: IdentityStore, checkpoint: Checkpoint, stop: StopSignal, pipe: ChunkPipe,
        partitionIdentity: IdentityStore? = nil, onWarning: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.onWarning = onWarning
        self.config = config
        self.options = options
        self.plan = plan
        self.state = state
        self.runState = runState
        self.identity = identity
        // A partitioned run's enricher looks identities up in the store that learns the
        // partition's transitions, and its own lines teach nothing more (their transitions are
        // among them).
        self.enricher = Enricher(config: config, identity: partitionIdentity ?? identity)
        enricher.learnsFromLines = partitionIdentity == nil
        enricher.preparer.setWindow(plan.window)
        runState.counters.withLock { $0.inputSpans = Self.spans(plan) }
        if let shard = options.shard, shard.mode == .identity, plan.partition == nil {
            enricher.shardRouter = ShardRouter(shard: shard, config: config, deviceAnonymousId: identity.deviceAnonymousId)
        }
        self.laneChunks = Self.emptyLaneChunks(max(config.delivery.concurrency, 1))
        self.checkpoint = checkpoint
        self.stop = stop
        self.pipe = pipe
        stop.whenRequested { [pipe] in pipe.interrupt() }
    }

    /// Where the reader renders the events of the lines not yet recorded (emptied by each record).
    let output = EventBuffer(capacity: 64 * 1024)
    /// The chunks being filled, one per engine lane (the engine routes a lane key `k` to lane
    /// `k % lanes`): a chunk's storage is freed as soon as its own lane has sent its events. One
    /// storage shared by all lanes lives until the slowest lane is done, so a lagging lane pins
    /// whole chunks (measured at 1M events: about 10 MB more peak RSS).
    // Unchecked (`laneChunks`, `chunkBytes`, `chunkEvents`): each event touches them several
    // times as it is copied into its chunk. The job is used by one thread at a time (see the
    // type's comment), and every access is instantaneous: none is passed `inout` or held across
    // a call or closure that touches the same property.
    @exclusivity(unchecked) var laneChunks: [EventChunk]
    /// Bytes and events in ``laneChunks``.
    @exclusivity(unchecked) var chunkBytes = 0
    @exclusivity(unchecked) var chunkEvents = 0
    /// Room reserved per lane chunk; the chunks go once they hold `lanes x 3/4` of it in all.
    static let laneStorageCapacity = 32 * 1024

    /// Reads everything (or until a stop), then closes the pipe. Returns why it stopped early, if it did.
    ///
    /// Events are rendered into ``output``; `record` copies them into their lane's chunk with
    /// their sequence numbers. Chunks are sent only right after every line read so far was
    /// recorded, so no line waiting to be recorded refers to an event that has gone.
    func read() throws -> (RunReport.Status, String)? {
        defer {
            // This thread's CPU, now that it is done: reading, preparing and recording the lines,
            // and the checkpoints written while it read.
            let cpu = CPUUsage.currentThread()
            runState.counters.withLock { $0.readingThreadCPU = cpu }
            pipe.finish()
        }
        let flushBytes = laneChunks.count * Self.laneStorageCapacity * 3 / 4
        var lines: [ReadLine] = []
        lines.reserveCapacity(Self.recordBatch)
        var early: (RunReport.Status, String)?
        /// `--limit`: events still to hand over before reading stops.
        var allowance = options.limit ?? Int.max
        try walk(
            onInputEnd: { index in
                // Lines of this input are recorded before it is marked as read to the end.
                guard self.recordLines(&lines, &early) else { return }
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
            if allowance != .max {
                if case .event = item.result { allowance -= 1 }
                // A record of several events is read to its end, so that none is sent twice.
                if allowance <= 0, item.line.endsLine {
                    noteLimitReached()
                    return false  // the lines read so far are recorded and sent below
                }
            }
            if lines.count >= Self.recordBatch || item.sequence & 1023 == 0 {
                guard recordLines(&lines, &early) else { return false }
                if chunkEvents >= Self.chunkSize || chunkBytes >= flushBytes {
                    try send()
                } else if item.sequence & 1023 == 0 {
                    try checkpointIfDue()
                }
            }
            return true
        }
        if early == nil, !lines.isEmpty { _ = recordLines(&lines, &early) }
        if chunkEvents > 0, early == nil { try send() }
        return early
    }

    /// Walks the plan's inputs, or in a partitioned run its shard of the partition
    /// (``PartitionWalker``), calling `body` for each line in order.
    private func walk(onInputEnd: (Int) throws -> Void, _ body: (LineWalker.Item) throws -> Bool) throws {
        guard let partition = plan.partition else {
            try LineWalker.walkRendered(
                inputs: plan.inputs.map(\.source), config: config, enricher: enricher, output: output, firstSequence: 0,
                resumeAt: plan.inputs.map(\.resumeAt), rules: plan.inputs.map(\.rules),
                onWarning: { warning in
                    self.runState.counters.withLock { $0.report.warnings.append(warning) }
                    self.onWarning(warning)
                }, onInputEnd: onInputEnd, body)
            return
        }
        var walker = PartitionWalker(
            set: partition, config: config, enricher: enricher, output: output,
            resumeLines: plan.inputs.map { ($0.resumeAt?.lineNumber ?? 1) - 1 }, rules: plan.inputs.map(\.rules))
        defer {
            let skipped = walker.resumedPast
            runState.counters.withLock { $0.report.events.resumedPast += skipped }
        }
        try walker.walk(onInputEnd: onInputEnd, body)
    }

    /// Records `lines` (one lock for all of them) and empties them and ``output``; false, with
    /// `early` set, when the run must stop. A method taking the reader's state `inout`, not a
    /// local function capturing it: captured, that state would be boxed, and each line's
    /// accesses to it checked for exclusivity at run time.
    private func recordLines(_ lines: inout [ReadLine], _ early: inout (RunReport.Status, String)?) -> Bool {
        if let failure = record(lines) {
            early = (.stoppedTransient, failure)
            return false
        }
        lines.removeAll(keepingCapacity: true)
        output.bytes.removeAll(keepingCapacity: true)
        return true
    }

    /// `--limit` was reached: the report says why the run ends before its inputs do.
    private func noteLimitReached() {
        let limit = options.limit ?? 0
        runState.counters.withLock {
            $0.report.stopReason =
                "--limit \(limit): reading stopped after \(limit) events were handed to the destination; run again to continue"
        }
    }

    /// Where each input's bytes lie in the run's byte count (see ``InputSpan``).
    static func spans(_ plan: ResumePlan) -> [InputSpan] {
        plan.inputs.indices.map { i in
            let input = plan.inputs[i]
            let end = i + 1 < plan.inputs.count ? plan.inputs[i + 1].bytesBefore : plan.totalBytes
            let skipped = input.isPlainText && input.source.kind != .snapshot ? input.resumeAt?.offset ?? 0 : 0
            return InputSpan(
                name: input.source.shardName, start: input.bytesBefore, size: input.source.isStdin ? nil : end - input.bytesBefore,
                skipped: skipped)
        }
    }

    /// Empty chunks, one per lane, with room reserved.
    static func emptyLaneChunks(_ lanes: Int) -> [EventChunk] {
        (0..<lanes).map { _ in
            var c = EventChunk()
            c.storage.reserveCapacity(laneStorageCapacity)
            return c
        }
    }

    /// Hands the lane chunks to the delivery side (in one message), writing checkpoints while
    /// it waits. Every line read so far must be recorded.
    private func send() throws {
        let events = laneChunks.filter { !$0.entries.isEmpty }
        laneChunks = Self.emptyLaneChunks(laneChunks.count)
        chunkBytes = 0
        chunkEvents = 0
        while true {
            switch pipe.send(events, until: lastCheckpoint + options.checkpointInterval) {
            case .sent:
                try checkpointIfDue()
                return
            case .closed: return
            case .woken:
                try checkpointIfDue()
                if stop.isRequested { return }
            }
        }
    }

    private func checkpointIfDue() throws {
        let now = ContinuousClock.now
        let learned = identity.uncommittedCount - uncommittedAfterCheckpoint
        guard now - lastCheckpoint >= options.checkpointInterval || learned >= options.mappingsPerCheckpoint else { return }
        lastCheckpoint = now
        try saveCheckpoint()
    }

    /// Writes the checkpoint (and the identities learned before it) now.
    func saveCheckpoint() throws {
        try state.saveCheckpoint(&checkpoint, plan: plan, runState: runState, identity: identity)
        uncommittedAfterCheckpoint = identity.uncommittedCount
    }

    /// Counts `lines` and records them in the tracker under one lock, copying the events to
    /// send into their lane's chunk. Returns why the run must stop (the dead-letter file failed),
    /// in which case the lines from the failed one on are not recorded, so the checkpoint cannot
    /// pass them.
    private func record(_ lines: [ReadLine]) -> String? {
        // Read once per batch: a lazy property's getter returns (and retains) its array per call.
        let isSnapshot = snapshotInputs
        // The rendered events are borrowed once per batch: borrowing them per event retained and
        // released the buffer's storage each time (nothing appends to it until the batch is done).
        return output.bytes.withUnsafeBufferPointer { rendered in record(lines, rendered, isSnapshot) }
    }

    /// ``record(_:)`` with the batch's rendered events (`rendered`) and snapshot flags.
    private func record(_ lines: [ReadLine], _ rendered: UnsafeBufferPointer<UInt8>, _ isSnapshot: [Bool]) -> String? {
        runState.counters.withLock { c -> String? in
            // By index: `for line in lines` would copy (retain and release) each line's storage.
            for i in lines.indices {
                if let failure = c.deadLetterError { return failure }
                let input = lines[i].input
                c.bytesRead = plan.inputs[input].bytesBefore + lines[i].fileBytesRead
                c.currentInput = input
                let lineNumber = lines[i].lineNumber, sequence = lines[i].sequence
                let endOffset = lines[i].settledOffset, settledThrough = lines[i].settledLineNumber
                let endsLine = lines[i].endsLine
                func settledLine() {
                    let seq = c.tracker.append(
                        input: input, endOffset: endOffset, lineNumber: settledThrough, settled: true, endsLine: endsLine)
                    precondition(seq == sequence, "reader and tracker disagree on the sequence")
                    c.lastSequence[input] = seq
                }
                switch lines[i].result {
                case .blank:
                    c.report.events.skippedBlank += 1
                    c.perInput[input].skippedBlank += 1
                    settledLine()
                case .skipped(let reason):
                    // Settled by a rule: nothing of the event is stored, only counted.
                    c.report.events.read += 1
                    c.perInput[input].read += 1
                    c.report.events.add(reason)
                    if reason.isFilter {
                        c.perInput[input].filtered += 1  // counted as filtered, like the report's total
                    } else {
                        c.perInput[input].skipped[reason.rawValue, default: 0] += 1
                    }
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
                case .event(let event):
                    let (range, laneKey) = (event.range, event.laneKey)
                    c.report.events.read += 1
                    c.perInput[input].read += 1
                    let seq = c.tracker.append(
                        input: input, endOffset: endOffset, lineNumber: settledThrough, settled: false, endsLine: endsLine)
                    precondition(seq == sequence, "reader and tracker disagree on the sequence")
                    c.lastSequence[input] = seq
                    c.inFlightEvents += 1
                    if isSnapshot[input], let id = MessageIdProbe.messageId(of: UnsafeBufferPointer(rebasing: rendered[range])) {
                        // Committed with the checkpoint that passes it, and logged if it is
                        // acknowledged past one: if the snapshot is rewritten, a later run skips it.
                        identity.noteSettledMessageId(id, input: plan.inputs[input].path, sequence: seq)
                        c.snapshotIds[seq] = id
                    }
                    // Outcomes are matched by tag (the sequence number): the messageId is not
                    // handed to the engine, so no string crosses threads per event.
                    let lane = LaneRouting.lane(forKey: laneKey, laneCount: laneChunks.count)
                    let start = laneChunks[lane].storage.count
                    laneChunks[lane].storage.append(contentsOf: UnsafeBufferPointer(rebasing: rendered[range]))
                    laneChunks[lane].entries.append(
                        EventChunk.Entry(range: start..<laneChunks[lane].storage.count, laneKey: laneKey, tag: seq))
                    chunkBytes += range.count
                    chunkEvents += 1
                }
            }
            return nil
        }
    }

    /// Whether each input is an SDK snapshot (whose settled messageIds are kept).
    private lazy var snapshotInputs = plan.inputs.map { $0.source.kind == .snapshot }

    /// Runs `body` on a new reader thread and returns its result.
    ///
    /// The reader is a dedicated thread, not a task, by design: it parses and enriches in a tight
    /// synchronous loop and blocks on the ``ChunkPipe`` for backpressure, which on the
    /// concurrency pool would hold one of its few threads; measured, this is the fastest layout.
    /// Its 8 MiB stack is for the JSON parser's recursion on deeply nested events.
    package static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try body() })
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }
}
