import ReplayConfiguration

/// Reads one shard of a partition (``PartitionSet``) in the unsharded run's order and enriches
/// its lines: each segment's own lines, merged by input position with what every line of the
/// segment teaches (``IdentityTransition``), which the shard's identity store learns in that
/// order. A line is prepared with the store as it stands before the line, as in an unsharded
/// run; then its own transition (if it teaches) is learned with the others.
///
/// Lines an earlier run of the shard settled are skipped (up to each input's checkpoint line)
/// or read again and not sent (``InputRules/settledLines``); transitions are always learned, so
/// the store is the same at every line whether the run resumed or not.
struct PartitionWalker {
    let set: PartitionSet
    let config: ReplayConfig
    let enricher: Enricher
    let output: EventBuffer
    /// Per input: the last line an earlier run settled (0: none), and the rules (settled lines).
    let resumeLines: [Int]
    let rules: [InputRules]
    /// Own lines skipped because an earlier run passed them.
    private(set) var resumedPast = 0
    private var sequence: UInt64 = 0
    /// Compressed bytes of the parts read so far (the earlier segments'), for progress.
    private var bytesBefore: UInt64 = 0
    /// The last own line that ended: its input, end offset and number.
    private var lastEnded: (input: Int, offset: UInt64, number: Int) = (-1, 0, 0)

    init(set: PartitionSet, config: ReplayConfig, enricher: Enricher, output: EventBuffer, resumeLines: [Int], rules: [InputRules]) {
        self.set = set
        self.config = config
        self.enricher = enricher
        self.output = output
        self.resumeLines = resumeLines
        self.rules = rules
    }

    /// Calls `body` for each of the shard's lines in order (false stops), and `onInputEnd` for
    /// each input once the parts of the worker that read it are done.
    mutating func walk(onInputEnd: (Int) throws -> Void, _ body: (LineWalker.Item) throws -> Bool) throws {
        var worker = 0
        for segment in set.segments {
            while worker < segment.worker {
                for input in set.workerInputs[worker] { try onInputEnd(input) }
                worker += 1
            }
            guard try walk(segment, body) else { return }
            bytesBefore += segment.lines.bytes
        }
        while worker < set.workers {
            for input in set.workerInputs[worker] { try onInputEnd(input) }
            worker += 1
        }
    }

    /// One segment; false when `body` asked to stop.
    private mutating func walk(_ segment: PartitionSet.Segment, _ body: (LineWalker.Item) throws -> Bool) throws -> Bool {
        let lines = try PartReader(segment.lines.name, store: set.store, size: segment.lines.bytes)
        let transitions = try PartReader(segment.transitions.name, store: set.store, size: segment.transitions.bytes)
        var carryOn = true
        while carryOn, let line = try lines.next({ try OwnLine(&$0) }) {
            let position = PartPosition(input: lines.input, line: line.number, event: line.eventIndex)
            try learn(from: transitions, before: position, including: false)
            carryOn = try deliver(line, input: lines.input, fileBytesRead: bytesBefore + lines.compressedBytesRead, body)
            try learn(from: transitions, before: position, including: true)
        }
        if carryOn { try learn(from: transitions, before: .end, including: false) }
        return carryOn
    }

    /// Learns the transitions before `position` (and at it, when `including`).
    private mutating func learn(from transitions: PartReader, before position: PartPosition, including: Bool) throws {
        while let next = try transitions.peekTransition(), next < position || including && next == position {
            let sequence = self.sequence
            _ = try transitions.next { try IdentityTransition.learn(from: &$0, enricher: enricher, sequence: sequence) }
        }
        if enricher.identity.isScratchCommitDue { try enricher.identity.commit(throughSequence: sequence) }
    }

    /// Hands one own line (or an unreadable input's rest) to `body`, unless an earlier run passed it.
    private mutating func deliver(
        _ own: OwnLine, input: Int, fileBytesRead: UInt64, _ body: (LineWalker.Item) throws -> Bool
    ) throws -> Bool {
        if own.number <= resumeLines[input], own.readError == nil {
            resumedPast += 1
            return true
        }
        var line = InputLine(
            bytes: own.bytes, lineNumber: own.number, startOffset: own.endOffset, endOffset: own.endOffset, truncated: own.truncated,
            fileBytesRead: fileBytesRead, fileSize: nil)
        (line.endsLine, line.member, line.refusal, line.skip) = (own.endsLine, own.member, own.refusal, own.skip)
        let result: LineOutcome<RenderedEvent>
        // An event of a record with more of the shard's to come settles no line of its own.
        var settledThrough = own.endsLine ? (own.endOffset, own.number) : settledPrefix(of: input)
        if own.endsLine { lastEnded = (input, own.endOffset, own.number) }
        if let message = own.readError {
            result = enricher.deadLetter(DeadLetterReason.readError, message)
            settledThrough = (own.endOffset, own.number - 1)
        } else {
            result = LineWalker.outcome(
                of: line, rules[input], maxEventBytes: config.delivery.maxEventBytes, enricher: enricher, sequence: sequence,
                output: output)
        }
        let item = LineWalker.Item(inputIndex: input, line: line, sequence: sequence, result: result, settledThrough: settledThrough)
        sequence += 1
        return try body(item)
    }
}

extension PartitionWalker {
    /// Where input `input`'s settled prefix ends before the line being read: at the shard's
    /// last own line of it that ended (its other lines settle with it), or where an earlier
    /// run left it.
    fileprivate func settledPrefix(of input: Int) -> (UInt64, Int) {
        lastEnded.input == input ? (lastEnded.offset, lastEnded.number) : (0, resumeLines[input])
    }
}

/// One `L` or `E` record of a shard's part.
private struct OwnLine {
    var number: Int
    var endOffset: UInt64
    var truncated = false
    var bytes: UnsafeBufferPointer<UInt8>
    /// For an `E` record: why the input could not be read further (`number` is the first line not read).
    var readError: String?
    /// For one of several events of a vendor's record: its index, and whether the record's
    /// line settles with a later event of this shard.
    var eventIndex = 0
    var endsLine = true
    var member: String?
    var refusal: (reason: String, detail: String)?
    var skip: SkipReason?

    init(_ reader: inout PartitionRecordReader) throws {
        switch try reader.tag() {
        case PartitionRecord.line:
            number = Int(try reader.varint())
            endOffset = try reader.varint()
            let flags = PartitionRecord.LineFlags(rawValue: try reader.tag())
            truncated = flags.contains(.truncated)
            endsLine = !flags.contains(.continues)
            if flags.contains(.eventIndex) { eventIndex = Int(try reader.varint()) }
            func text() throws -> String { String(decoding: try reader.field(), as: UTF8.self) }
            if flags.contains(.member) { member = try text() }
            if flags.contains(.refused) { refusal = (try text(), try text()) }
            if flags.contains(.skipped) {
                guard let reason = SkipReason(rawValue: try text()) else { throw PartitionDamage.unknownRecord }
                skip = reason
            }
            bytes = try reader.field()
        case PartitionRecord.readError:
            number = Int(try reader.varint())
            endOffset = try reader.varint()
            let message = try reader.field()
            readError = String(decoding: message, as: UTF8.self)
            bytes = UnsafeBufferPointer(start: nil, count: 0)
        default:
            throw PartitionDamage.unknownRecord
        }
    }
}
