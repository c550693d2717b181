import Foundation

/// Reads every input in order and enriches each line: the part shared by `validate` and dry runs.
public struct LineWalker {
    /// One processed line.
    public struct Item {
        /// The input it came from.
        public let source: InputSource
        /// The input's position in the list walked.
        public let inputIndex: Int
        /// The line as read (valid only during the callback).
        public let line: InputLine
        /// The global read-order number given to the enricher.
        public let sequence: UInt64
        /// The outcome.
        public let result: EnrichResult
    }

    /// The longest line the reader keeps whole for a config: over `max_event_bytes` (so it is
    /// reported `too_large`) but at least 1 MiB, so dead letters keep the original bytes.
    public static func maxLineBytes(for config: ReplayConfig) -> Int {
        max(config.batching.maxEventBytes + 1, 1 << 20)
    }

    /// How many background workers prepare lines by default: `MR_REPLAY_WORKERS` when set (0
    /// turns them off), else one per processor besides the calling thread's (none on one processor).
    public static var defaultWorkers: Int {
        if let text = ProcessInfo.processInfo.environment["MR_REPLAY_WORKERS"], let n = Int(text), n >= 0 { return min(n, 64) }
        return ProcessInfo.processInfo.activeProcessorCount - 1
    }

    /// Enriches every line of `inputs` in order, calling `body` for each; `body` returns false to stop.
    /// An input that cannot be read to its end yields one final `read_error` item (empty bytes).
    /// `onInputEnd(i)` is called when input `i` was read to its end. `resumeAt[i]`, when given, is where input `i` starts. Returns the next unused sequence number.
    ///
    /// With `workers` > 0, the order-independent part of enrichment runs on that many Dispatch
    /// workers, a chunk of lines at a time, while identity carry-forward, learning and `body`
    /// stay on the calling thread in read order: the items and their results are the same as
    /// without workers.
    @discardableResult
    public static func walk(
        inputs: [InputSource], config: ReplayConfig, enricher: Enricher, firstSequence: UInt64 = 1,
        resumeAt: [ResumePoint?] = [], workers: Int = LineWalker.defaultWorkers, onInputEnd: (Int) throws -> Void = { _ in },
        _ body: (Item) throws -> Bool
    ) throws -> UInt64 {
        // `body` is only called during the walk; the walker just keeps it in a local struct.
        try withoutActuallyEscaping(body) { body in
            var walker = Walk(enricher: enricher, sequence: firstSequence, workers: workers, body: body)
            defer { walker.waitForWorkers() }
            for (index, source) in inputs.enumerated() {
                let resume = index < resumeAt.count ? resumeAt[index] : nil
                walker.lastLine = (resume?.lineNumber ?? 1) - 1
                walker.lastEnd = resume?.offset ?? 0
                do {
                    let reader = try InputReader(source: source, resumeAt: resume, maxLineBytes: maxLineBytes(for: config))
                    try reader.forEachLine { line in try walker.add(line, source: source, index: index) }
                    try walker.drainAll(source: source, index: index)
                } catch let error as InputError {
                    // An unreadable or corrupt input (e.g. truncated gzip) does not stop the run: the lines
                    // read so far stand, and the rest of this input is reported as one `read_error`.
                    try walker.drainAll(source: source, index: index)
                    if walker.stopped { break }
                    try walker.readError(error, source: source, index: index)
                }
                if walker.stopped { break }
                try onInputEnd(index)
            }
            return walker.sequence
        }
    }

    /// The state of one walk: the chunks being prepared and the read-order bookkeeping.
    private struct Walk {
        let enricher: Enricher
        var sequence: UInt64
        let body: (Item) throws -> Bool
        /// Chunks handed to workers, oldest first.
        var inFlight: [LineChunk] = []
        /// Chunks ready to be filled.
        var free: [LineChunk] = []
        /// The chunk being filled (parallel mode only).
        var current: LineChunk?
        let parallel: Bool
        /// One serial queue per worker; chunks go round-robin.
        var queues: [DispatchQueue] = []
        var nextQueue = 0
        var stopped = false
        var lastLine = 0
        var lastEnd: UInt64 = 0

        init(enricher: Enricher, sequence: UInt64, workers: Int, body: @escaping (Item) throws -> Bool) {
            self.enricher = enricher
            self.sequence = sequence
            self.body = body
            parallel = workers > 0
            if parallel {
                // Two chunks per worker keep every worker busy while the reader finishes others.
                free = (0..<(2 * workers + 1)).map { _ in LineChunk(preparer: enricher.preparer.copy()) }
                queues = (0..<workers).map { DispatchQueue(label: "mr-replay.prepare.\($0)", qos: .userInitiated) }
            }
        }

        /// Takes one line: processes it now (one worker) or adds it to the current chunk.
        mutating func add(_ line: InputLine, source: InputSource, index: Int) throws -> Bool {
            guard parallel else {
                let result = enricher.process(line.bytes, lineNumber: line.lineNumber, sequence: sequence)
                return try deliver(line, result, source: source, index: index)
            }
            if current == nil {
                if free.isEmpty { try finishOldest(source: source, index: index) }
                if stopped { return false }
                current = free.removeLast()
            }
            current!.append(line)
            if current!.isFull { handOver() }
            return !stopped
        }

        /// Hands over the partial chunk and finishes every chunk in flight.
        mutating func drainAll(source: InputSource, index: Int) throws {
            if let c = current {
                if c.isEmpty {
                    current = nil
                    free.append(c)
                } else {
                    handOver()
                }
            }
            while !inFlight.isEmpty { try finishOldest(source: source, index: index) }
        }

        /// Gives the current chunk to the next worker.
        private mutating func handOver() {
            guard let c = current else { return }
            current = nil
            c.prepareInBackground(on: queues[nextQueue])
            nextQueue = (nextQueue + 1) % queues.count
            inFlight.append(c)
        }

        /// Waits for the oldest chunk and finishes its lines in read order.
        private mutating func finishOldest(source: InputSource, index: Int) throws {
            let chunk = inFlight.removeFirst()
            chunk.waitUntilPrepared()
            defer {
                chunk.reset()
                free.append(chunk)
            }
            guard !stopped else { return }
            var prepared = chunk.takePreparedReversed()
            try chunk.bytes.withUnsafeBufferPointer { buf in
                for l in chunk.lines {
                    let bytes = UnsafeBufferPointer(rebasing: buf[l.range])
                    let result = enricher.finish(prepared.removeLast(), line: bytes, lineNumber: l.lineNumber, sequence: sequence)
                    let line = InputLine(
                        bytes: bytes, lineNumber: l.lineNumber, startOffset: l.startOffset, endOffset: l.endOffset,
                        truncated: l.truncated, fileBytesRead: l.fileBytesRead, fileSize: l.fileSize)
                    if try !deliver(line, result, source: source, index: index) { return }
                }
            }
        }

        /// Numbers one finished line and hands it to `body`; false once `body` asked to stop.
        private mutating func deliver(_ line: InputLine, _ result: EnrichResult, source: InputSource, index: Int) throws -> Bool {
            let item = Item(source: source, inputIndex: index, line: line, sequence: sequence, result: result)
            sequence += 1
            lastLine = line.lineNumber
            lastEnd = line.endOffset
            if try !body(item) { stopped = true }
            return !stopped
        }

        /// Reports the rest of an input that could not be read as one `read_error` item.
        mutating func readError(_ error: InputError, source: InputSource, index: Int) throws {
            enricher.stats.deadLetters[DeadLetterReason.readError, default: 0] += 1
            let empty = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
            let line = InputLine(
                bytes: empty, lineNumber: lastLine + 1, startOffset: lastEnd, endOffset: lastEnd, truncated: false,
                fileBytesRead: 0, fileSize: nil)
            let item = Item(
                source: source, inputIndex: index, line: line, sequence: sequence,
                result: .deadLetter(reason: DeadLetterReason.readError, detail: error.message))
            sequence += 1
            if try !body(item) { stopped = true }
        }

        /// Waits for chunks still with workers (after a stop or an error), so none outlives the walk.
        mutating func waitForWorkers() {
            for c in inFlight { c.waitUntilPrepared() }
            inFlight.removeAll()
        }
    }
}
