import ReplayConfiguration

/// Reads every input in order and enriches each line: the part shared by `validate` and dry runs.
package struct LineWalker {
    /// One processed line; its event, if any, is in the walk's ``EventBuffer``.
    package struct Item {
        /// The position, in the list walked, of the input it came from. (The item does not copy
        /// the ``InputSource``: it is made for every line.)
        package let inputIndex: Int
        /// The line as read (valid only during the callback).
        package let line: InputLine
        /// The global read-order number given to the enricher.
        package let sequence: UInt64
        /// The outcome.
        package let result: LineOutcome<RenderedEvent>
        /// Where the input's settled prefix ends once this item is settled: the end offset and
        /// number of the last line it covers. For a line that is `line`'s end and number; for a
        /// `read_error` item it is the last line actually read, so a later run resumes right
        /// after it (the item's own `line.lineNumber` names the first line that was not read).
        package let settledThrough: (offset: UInt64, lineNumber: Int)
    }

    /// The longest line the reader keeps whole for a config: over `max_event_bytes` (so it is
    /// reported `too_large`) but at least 1 MiB, so dead letters keep the original bytes.
    package static func maxLineBytes(for config: ReplayConfig) -> Int {
        max(config.delivery.maxEventBytes + 1, 1 << 20)
    }

    /// Enriches every line of `inputs` in order, calling `body` for each; `body` returns false
    /// to stop. Each event is rendered at the end of `output.bytes` (the caller takes or clears
    /// them). Returns the next unused sequence number.
    ///
    /// An input that cannot be read to its end yields one final `read_error` item (empty
    /// bytes). `onInputEnd(i)` is called when input `i` was read to its end. `resumeAt[i]`,
    /// when given, is where input `i` starts.
    ///
    /// `rules[i]` are input `i`'s rules (``InputRules``); where none are given they are made
    /// here, and a snapshot that cannot be replayed then yields one `unsupported_snapshot` item
    /// and is not read. `onWarning` hears what a person should know about an input (empty,
    /// damaged, purged).
    @discardableResult
    package static func walkRendered(
        inputs: [InputSource], config: ReplayConfig, enricher: Enricher, output: EventBuffer, firstSequence: UInt64 = 1,
        resumeAt: [ResumePoint?] = [], rules: [InputRules] = [], onWarning: (String) -> Void = { _ in },
        onInputEnd: (Int) throws -> Void = { _ in }, _ body: (Item) throws -> Bool
    ) throws -> UInt64 {
        var sequence = firstSequence
        let runStart = enricher.preparer.nowMillis()
        if enricher.converter == nil { enricher.converter = try RecordConverter(config.inputs.shaping) }
        for (index, source) in inputs.enumerated() {
            var walk = InputWalk(
                source: source, index: index, resume: index < resumeAt.count ? resumeAt[index] : nil, sequence: sequence)
            defer { sequence = walk.sequence }
            let inputRules: InputRules
            do {
                if index < rules.count {
                    inputRules = rules[index]  // the caller planned them and told their warnings
                } else {
                    inputRules = try InputRules.make(for: source, config: config, runStartMillis: runStart)
                    inputRules.warnings(for: source).forEach(onWarning)
                }
            } catch let unsupported as UnsupportedSnapshot {
                // Not read: one item says why.
                let result = enricher.deadLetter(DeadLetterReason.unsupportedSnapshot, unsupported.description)
                if try !walk.deliver(result, line: .none(lineNumber: 0, offset: 0), settled: false, body) { break }
                continue
            } catch let error as InputError {
                if try !walk.readError(error, enricher: enricher, body) { break }
                try onInputEnd(index)
                continue
            }
            enricher.preparer.expiryCutoffMillis = inputRules.expiryCutoffMillis
            if try !walk.readLines(inputRules, config: config, enricher: enricher, output: output, body) { break }
            if !walk.sawContent, walk.resume == nil {
                onWarning("\(source.path): the input is empty (no events, only blank lines or nothing at all)")
            }
            try onInputEnd(index)
        }
        return sequence
    }

    /// Walking one input: where its settled prefix ends so far, and the next sequence number.
    private struct InputWalk {
        let source: InputSource
        let index: Int
        let resume: ResumePoint?
        var sequence: UInt64
        /// The number and end offset of the last line read intact.
        var lastLine: Int
        var lastEnd: UInt64
        /// Whether a line other than a blank one was read.
        var sawContent = false

        init(source: InputSource, index: Int, resume: ResumePoint?, sequence: UInt64) {
            self.source = source
            self.index = index
            self.resume = resume
            self.sequence = sequence
            lastLine = (resume?.lineNumber ?? 1) - 1
            lastEnd = resume?.offset ?? 0
        }

        /// Reads every line of the input; false when `body` asked to stop. An input that cannot
        /// be read to its end (e.g. truncated gzip) does not stop the walk: the lines read so far
        /// stand, and the rest of it is reported as one `read_error` item.
        mutating func readLines(
            _ rules: InputRules, config: ReplayConfig, enricher: Enricher, output: EventBuffer, _ body: (Item) throws -> Bool
        ) throws -> Bool {
            do {
                let reader = try InputReader(
                    source: source, resumeAt: resume, maxLineBytes: maxLineBytes(for: config), shaping: config.inputs.shaping)
                var carryOn = true
                // Read once here: the configuration is not captured by the per-line closure, which
                // would copy it (and retain its every reference) for each line.
                let maxEventBytes = config.delivery.maxEventBytes
                try reader.forEachLine(converter: enricher.converter) { line in
                    let result = outcome(
                        of: line, rules, maxEventBytes: maxEventBytes, enricher: enricher, sequence: sequence, output: output)
                    if case .blank = result {} else { sawContent = true }
                    // The rest of a damaged snapshot does not move its settled position: when the
                    // file is later replaced by its complete version, reading resumes at the damage.
                    carryOn = try deliver(result, line: line, settled: line.damage == nil && line.endsLine, body)
                    return carryOn
                }
                return carryOn
            } catch let error as InputError {
                return try readError(error, enricher: enricher, body)
            }
        }

        /// Reports the rest of an input that cannot be read as one `read_error` item, numbered
        /// as the first line not read; false when `body` asked to stop.
        mutating func readError(_ error: InputError, enricher: Enricher, _ body: (Item) throws -> Bool) throws -> Bool {
            sawContent = true
            let result = enricher.deadLetter(DeadLetterReason.readError, error.message)
            return try deliver(result, line: .none(lineNumber: lastLine + 1, offset: lastEnd), settled: false, body)
        }

        /// Hands one item to `body` (false: stop). A `settled` line moves the settled prefix
        /// to its end first.
        mutating func deliver(
            _ result: LineOutcome<RenderedEvent>, line: InputLine, settled: Bool, _ body: (Item) throws -> Bool
        ) throws -> Bool {
            if settled {
                lastLine = line.lineNumber
                lastEnd = line.endOffset
            }
            let item = Item(
                inputIndex: index, line: line, sequence: sequence, result: result, settledThrough: (lastEnd, lastLine))
            sequence += 1
            return try body(item)
        }
    }

    /// What becomes of one line of an input with `rules`.
    @inline(__always)
    static func outcome(
        of line: InputLine, _ rules: InputRules, maxEventBytes: Int, enricher: Enricher, sequence: UInt64, output: EventBuffer
    ) -> LineOutcome<RenderedEvent> {
        if line.damage != nil || line.refusal != nil || line.truncated {
            // What the reader could not hand over whole has no identity: shard 0 dead-letters it.
            if let shard = enricher.shardRouter?.shard, shard.index != 0 { return enricher.skipped(.otherShard) }
        }
        if let skip = line.skip { return enricher.skipped(skip) }
        if let damage = line.damage { return enricher.deadLetter(DeadLetterReason.damagedSnapshot, damage) }
        if let refusal = line.refusal {
            return enricher.deadLetter(refusal.reason, line.member.map { "in \($0): \(refusal.detail)" } ?? refusal.detail)
        }
        if line.truncated {
            // Longer than the reader keeps whole, which is over max_event_bytes.
            return enricher.deadLetter(
                DeadLetterReason.tooLarge,
                "line is over \(line.bytes.count) bytes (raw truncated to its first \(line.bytes.count)); "
                    + "batching.max_event_bytes is \(maxEventBytes)")
        }
        let route = enricher.shardRouter?.route(line.bytes) ?? .own
        if route == .skip { return enricher.skipped(.otherShard) }
        if line.lineNumber < rules.purgedThroughLine {
            return route == .own ? enricher.skipped(.consentDropped) : enricher.skipped(.otherShard)
        }
        if route == .learnOnly {
            return enricher.learnOnly(line.bytes, sequence: sequence)
        }
        if let settled = rules.settledMessageIds, let id = MessageIdProbe.messageId(of: line.bytes), settled.contains(id) {
            return enricher.skipped(.alreadyDelivered)
        }
        var outcome = enricher.process(line.bytes, lineNumber: line.lineNumber, sequence: sequence, into: &output.bytes)
        if let member = line.member, case .deadLetter(let reason, let detail) = outcome {
            outcome = .deadLetter(reason: reason, detail: "in \(member): \(detail)")  // an archive's line names its member
        }
        // Settled by an earlier run past its checkpoint: enriched again (its identities are
        // learned as before), not sent or dead-lettered again.
        if let settled = rules.settledLines, settled.contains(line.lineNumber) {
            switch outcome {
            case .event(let event):
                if event.range.upperBound == output.bytes.count { output.bytes.removeLast(event.range.count) }
                return enricher.skipped(.alreadyDelivered)
            case .deadLetter: return enricher.skipped(.alreadyDelivered)
            case .blank, .skipped: return outcome
            }
        }
        return outcome
    }
}

extension InputLine {
    /// An item's line where no line was read (an unreadable input's rest, an unsupported
    /// snapshot): no bytes, numbered `lineNumber`, at `offset`.
    static func none(lineNumber: Int, offset: UInt64) -> InputLine {
        InputLine(
            bytes: UnsafeBufferPointer(start: nil, count: 0), lineNumber: lineNumber, startOffset: offset, endOffset: offset,
            truncated: false, fileBytesRead: 0, fileSize: nil)
    }
}
