/// Reads every input in order and enriches each line: the part shared by `validate` and dry runs.
package struct LineWalker {
    /// One processed line.
    package struct Item {
        /// The input it came from.
        package let source: InputSource
        /// The input's position in the list walked.
        package let inputIndex: Int
        /// The line as read (valid only during the callback).
        package let line: InputLine
        /// The global read-order number given to the enricher.
        package let sequence: UInt64
        /// The outcome.
        package let result: EnrichResult
        /// Where the input's settled prefix ends once this item is settled: the end offset and
        /// number of the last line it covers. For a line that is `line`'s end and number; for a
        /// `read_error` item it is the last line actually read, so a later run resumes right
        /// after it (the item's own `line.lineNumber` names the first line that was not read).
        package let settledThrough: (offset: UInt64, lineNumber: Int)
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
    package static func maxLineBytes(for config: ReplayConfig) -> Int {
        max(config.batching.maxEventBytes + 1, 1 << 20)
    }

    /// Enriches every line of `inputs` in order, calling `body` for each; `body` returns false to stop.
    /// An input that cannot be read to its end yields one final `read_error` item (empty bytes).
    /// `onInputEnd(i)` is called when input `i` was read to its end. `resumeAt[i]`, when given, is where input `i` starts. Returns the next unused sequence number.
    @discardableResult
    package static func walk(
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
    ///
    /// `rules[i]` are input `i`'s rules (``InputRules``); where none are given they are made
    /// here, and a snapshot that cannot be replayed then yields one `unsupported_snapshot` item
    /// and is not read. `onWarning` hears what a person should know about an input (empty,
    /// damaged, purged).
    @discardableResult
    static func walkRendered(
        inputs: [InputSource], config: ReplayConfig, enricher: Enricher, output: EventBuffer, firstSequence: UInt64 = 1,
        resumeAt: [ResumePoint?] = [], rules: [InputRules] = [], onWarning: (String) -> Void = { _ in },
        onInputEnd: (Int) throws -> Void = { _ in }, _ body: (RenderedItem) throws -> Bool
    ) throws -> UInt64 {
        var sequence = firstSequence
        let runStart = enricher.preparer.nowMillis()
        for (index, source) in inputs.enumerated() {
            var stop = false
            let resume = index < resumeAt.count ? resumeAt[index] : nil
            var lastLine = (resume?.lineNumber ?? 1) - 1
            var lastEnd: UInt64 = resume?.offset ?? 0
            var sawContent = false
            do {
                let inputRules: InputRules
                if index < rules.count {
                    inputRules = rules[index]  // the caller planned them and told their warnings
                } else {
                    do {
                        inputRules = try InputRules.make(for: source, config: config, runStartMillis: runStart)
                        inputRules.warnings(for: source).forEach(onWarning)
                    } catch let unsupported as UnsupportedSnapshot {
                        let line = InputLine(
                            bytes: UnsafeBufferPointer(start: nil, count: 0), lineNumber: 0, startOffset: 0, endOffset: 0,
                            truncated: false, fileBytesRead: 0, fileSize: nil)
                        let result = enricher.deadLetter(DeadLetterReason.unsupportedSnapshot, unsupported.description)
                        let item = RenderedItem(
                            source: source, inputIndex: index, line: line, sequence: sequence, result: result,
                            settledThrough: (lastEnd, lastLine))
                        sequence += 1
                        if try !body(item) { break }
                        continue
                    }
                }
                enricher.preparer.expiryCutoffMillis = inputRules.expiryCutoffMillis
                let reader = try InputReader(source: source, resumeAt: resume, maxLineBytes: maxLineBytes(for: config))
                try reader.forEachLine { line in
                    let result = outcome(of: line, inputRules, config: config, enricher: enricher, sequence: sequence, output: output)
                    if case .blank = result {} else { sawContent = true }
                    // The rest of a damaged snapshot does not move its settled position: when the file
                    // is later replaced by its complete version, reading resumes at the damage.
                    let settled = line.damage == nil ? (line.endOffset, line.lineNumber) : (lastEnd, lastLine)
                    if line.damage == nil {
                        lastLine = line.lineNumber
                        lastEnd = line.endOffset
                    }
                    let item = RenderedItem(
                        source: source, inputIndex: index, line: line, sequence: sequence, result: result, settledThrough: settled)
                    sequence += 1
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
                sawContent = true
                let item = RenderedItem(
                    source: source, inputIndex: index, line: line, sequence: sequence,
                    result: enricher.deadLetter(DeadLetterReason.readError, error.message), settledThrough: (lastEnd, lastLine))
                sequence += 1
                if try !body(item) { stop = true }
            }
            if stop { break }
            if !sawContent, resume == nil {
                onWarning("\(source.path): the input is empty (no events, only blank lines or nothing at all)")
            }
            try onInputEnd(index)
        }
        return sequence
    }

    /// What becomes of one line of an input with `rules`.
    @inline(__always)
    private static func outcome(
        of line: InputLine, _ rules: InputRules, config: ReplayConfig, enricher: Enricher, sequence: UInt64, output: EventBuffer
    ) -> LineResult {
        if let damage = line.damage { return enricher.deadLetter(DeadLetterReason.damagedSnapshot, damage) }
        if line.truncated {
            // Longer than the reader keeps whole, which is over max_event_bytes.
            return enricher.deadLetter(
                DeadLetterReason.tooLarge,
                "line is over \(line.bytes.count) bytes (raw truncated to its first \(line.bytes.count)); "
                    + "batching.max_event_bytes is \(config.batching.maxEventBytes)")
        }
        if line.lineNumber < rules.purgedThroughLine { return enricher.skipped(.consentDropped) }
        if let settled = rules.settledMessageIds, let id = MessageIdProbe.messageId(of: line.bytes), settled.contains(id) {
            return enricher.skipped(.alreadyDelivered)
        }
        return enricher.process(line.bytes, lineNumber: line.lineNumber, sequence: sequence, into: &output.bytes)
    }
}
