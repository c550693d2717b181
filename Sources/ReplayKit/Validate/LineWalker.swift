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
        /// Where the input's settled prefix ends once this item is settled: the end offset and
        /// number of the last line it covers. For a line that is `line`'s end and number; for a
        /// `read_error` item it is the last line actually read, so a later run resumes right
        /// after it (the item's own `line.lineNumber` names the first line that was not read).
        public let settledThrough: (offset: UInt64, lineNumber: Int)
    }

    /// One processed line on the hot path: the event, if any, is in the walk's ``EventBuffer``.
    struct RenderedItem {
        let source: InputSource
        let inputIndex: Int
        /// The line as read (valid only during the callback).
        let line: InputLine
        let sequence: UInt64
        let result: LineResult
        /// As ``Item/settledThrough``.
        let settledThrough: (offset: UInt64, lineNumber: Int)
    }

    /// The longest line the reader keeps whole for a config: over `max_event_bytes` (so it is
    /// reported `too_large`) but at least 1 MiB, so dead letters keep the original bytes.
    public static func maxLineBytes(for config: ReplayConfig) -> Int {
        max(config.batching.maxEventBytes + 1, 1 << 20)
    }

    /// Enriches every line of `inputs` in order, calling `body` for each; `body` returns false to stop.
    /// An input that cannot be read to its end yields one final `read_error` item (empty bytes).
    /// `onInputEnd(i)` is called when input `i` was read to its end. `resumeAt[i]`, when given, is where input `i` starts. Returns the next unused sequence number.
    @discardableResult
    public static func walk(
        inputs: [InputSource], config: ReplayConfig, enricher: Enricher, firstSequence: UInt64 = 1,
        resumeAt: [ResumePoint?] = [], onInputEnd: (Int) throws -> Void = { _ in }, _ body: (Item) throws -> Bool
    ) throws -> UInt64 {
        let output = EventBuffer()
        return try walkRendered(
            inputs: inputs, config: config, enricher: enricher, output: output, firstSequence: firstSequence,
            resumeAt: resumeAt, onInputEnd: onInputEnd
        ) { item in
            let result = EnrichResult(item.result, rendered: output.bytes)
            output.bytes.removeAll(keepingCapacity: true)
            return try body(Item(
                source: item.source, inputIndex: item.inputIndex, line: item.line, sequence: item.sequence,
                result: result, settledThrough: item.settledThrough))
        }
    }

    /// The hot path of ``walk(inputs:config:enricher:firstSequence:resumeAt:onInputEnd:_:)``:
    /// each event is rendered at the end of `output.bytes` (the caller takes or clears them).
    @discardableResult
    static func walkRendered(
        inputs: [InputSource], config: ReplayConfig, enricher: Enricher, output: EventBuffer, firstSequence: UInt64 = 1,
        resumeAt: [ResumePoint?] = [], onInputEnd: (Int) throws -> Void = { _ in }, _ body: (RenderedItem) throws -> Bool
    ) throws -> UInt64 {
        var sequence = firstSequence
        for (index, source) in inputs.enumerated() {
            var stop = false
            let resume = index < resumeAt.count ? resumeAt[index] : nil
            var lastLine = (resume?.lineNumber ?? 1) - 1
            var lastEnd: UInt64 = resume?.offset ?? 0
            do {
                let reader = try InputReader(source: source, resumeAt: resume, maxLineBytes: maxLineBytes(for: config))
                try reader.forEachLine { line in
                    let result: LineResult
                    if line.truncated {
                        // Longer than the reader keeps whole, which is over max_event_bytes.
                        result = enricher.deadLetter(
                            DeadLetterReason.tooLarge,
                            "line is over \(line.bytes.count) bytes (raw truncated to its first \(line.bytes.count)); "
                                + "batching.max_event_bytes is \(config.batching.maxEventBytes)")
                    } else {
                        result = enricher.process(line.bytes, lineNumber: line.lineNumber, sequence: sequence, into: &output.bytes)
                    }
                    let item = RenderedItem(
                        source: source, inputIndex: index, line: line, sequence: sequence, result: result,
                        settledThrough: (line.endOffset, line.lineNumber))
                    sequence += 1
                    lastLine = line.lineNumber
                    lastEnd = line.endOffset
                    if try !body(item) {
                        stop = true
                        return false
                    }
                    return true
                }
            } catch let error as InputError {
                // An unreadable or corrupt input (e.g. truncated gzip) does not stop the run: the lines
                // read so far stand, and the rest of this input is reported as one `read_error`.
                let empty = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
                let line = InputLine(
                    bytes: empty, lineNumber: lastLine + 1, startOffset: lastEnd, endOffset: lastEnd, truncated: false,
                    fileBytesRead: 0, fileSize: nil)
                let item = RenderedItem(
                    source: source, inputIndex: index, line: line, sequence: sequence,
                    result: enricher.deadLetter(DeadLetterReason.readError, error.message),
                    settledThrough: (lastEnd, lastLine))
                sequence += 1
                if try !body(item) { stop = true }
            }
            if stop { break }
            try onInputEnd(index)
        }
        return sequence
    }
}
