import EventTransforms
import ReplayConfiguration
import VendorExports

/// What a walk does to each record before it is enriched: a vendor's recipe turns it into
/// Segment-spec events (``ExportRecipe``), then the transforms run on each (``EventTransformer``).
/// The events of one record are handed over as one line's: numbered like it, all but the last
/// with ``InputLine/endsLine`` false, so the record settles (and a checkpoint passes it) only
/// with its last event. An event a transform drops is handed over as a line settled by that
/// rule (``InputLine/skip``), so the report counts it; a record that becomes no event, once, the
/// same way. A record a recipe cannot map, or an event a transform fails on, is a refused line,
/// dead-lettered with the reason and a detail that names the recipe or the step.
///
/// One converter per walk, used by one thread: the recipe keeps scratch storage and a jq program
/// is not thread-safe.
final class RecordConverter {
    private var recipe: ExportRecipe?
    private let transformer: EventTransformer?
    /// The recipe's events of the current record, and where each lies.
    private var converted: [UInt8] = []
    private var events: [Range<Int>] = []
    /// The transformed events of the current record, and where each lies (nil: dropped).
    private var transformed: [UInt8] = []
    private var results: [Result<Range<Int>?, TransformFailure>] = []

    /// A converter for `shaping`, or nil when records go through as they are.
    init?(_ shaping: ReplayConfig.InputShaping) throws {
        guard shaping.converts else { return nil }
        recipe = shaping.from.map(ExportRecipe.init)
        do {
            transformer = try shaping.transform.flatMap { $0.isEmpty ? nil : try EventTransformer($0) }
        } catch {
            throw UsageError("transform: \(error)")
        }
    }

    /// What the transforms did so far (nil without transforms).
    var transformCounters: TransformCounters? { transformer?.counters }
    /// The transform steps' kinds, in order.
    var stepKinds: [StepKind] { transformer?.plan.steps.map(\.kind) ?? [] }
    /// messageIds the recipe derived so far.
    var derivedMessageIds: Int { recipe?.derivedMessageIds ?? 0 }

    /// Converts `line` and hands its events to `body`; returns false when `body` asked to stop.
    func convert(_ line: InputLine, _ body: (InputLine) throws -> Bool) throws -> Bool {
        // A blank line stays blank (counted, never refused by a recipe).
        guard line.damage == nil, line.refusal == nil, !line.truncated, line.skip == nil, !ShardRouter.isBlank(line.bytes) else {
            return try body(line)
        }
        converted.removeAll(keepingCapacity: true)
        events.removeAll(keepingCapacity: true)
        if recipe != nil {
            // Mutated in place: a local copy would share the recipe's scratch storage with this
            // property, so its first write would copy that storage for every record.
            do {
                try recipe!.convert(line.bytes, into: &converted, events: &events)
            } catch {
                return try body(line.refused(reason: error.reason, detail: error.detail))
            }
        } else {
            converted.append(contentsOf: line.bytes)
            events.append(0..<converted.count)
        }
        transform()
        return try handOver(line, body)
    }

    /// Runs the transforms on every event of the record into ``results``.
    private func transform() {
        transformed.removeAll(keepingCapacity: true)
        results.removeAll(keepingCapacity: true)
        for range in events {
            guard let transformer else {
                results.append(.success(range))
                continue
            }
            let start = transformed.count
            let outcome = converted.withUnsafeBufferPointer { all -> Result<TransformOutcome, TransformFailure> in
                Result { () throws(TransformFailure) in try transformer.apply(UnsafeBufferPointer(rebasing: all[range]), into: &transformed) }
            }
            switch outcome {
            case .success(.kept): results.append(.success(start..<transformed.count))
            case .success: results.append(.success(nil))
            case .failure(let failure):
                transformed.removeSubrange(start...)
                results.append(.failure(failure))
            }
        }
    }

    /// Hands over what the record became, one line per event in order, the last ending the
    /// line: each kept event, each event a transform failed on as a refused line, each event a
    /// transform dropped as a line settled by that rule; a record of no event, once, as a line
    /// settled by a rule.
    private func handOver(_ line: InputLine, _ body: (InputLine) throws -> Bool) throws -> Bool {
        guard !events.isEmpty else { return try body(line.settled(by: .noEvent)) }
        let source = transformer == nil ? converted : transformed
        return try source.withUnsafeBufferPointer { all in
            for (i, result) in results.enumerated() {
                var out: InputLine
                switch result {
                case .success(let range?): out = line.replacing(bytes: UnsafeBufferPointer(rebasing: all[range]))
                case .success(nil): out = line.replacing(bytes: UnsafeBufferPointer(start: nil, count: 0)).settled(by: .droppedByTransform)
                case .failure(let failure):
                    out = converted.withUnsafeBufferPointer { line.replacing(bytes: UnsafeBufferPointer(rebasing: $0[events[i]])) }
                    out = out.refused(reason: failure.reason, detail: failure.detail)
                }
                out.endsLine = i == results.count - 1 && line.endsLine
                guard try body(out) else { return false }
            }
            return true
        }
    }
}

extension InputLine {
    /// The same line refused with `reason` (dead-lettered whole, never parsed).
    func refused(reason: String, detail: String) -> InputLine {
        var line = self
        line.refusal = (reason, detail)
        return line
    }

    /// The same line, settled by a rule without an event.
    func settled(by reason: SkipReason) -> InputLine {
        var line = self
        line.skip = reason
        return line
    }

    /// The same line's place (number, offsets) with other bytes: an event made from it.
    func replacing(bytes: UnsafeBufferPointer<UInt8>) -> InputLine {
        var line = InputLine(
            bytes: bytes, lineNumber: lineNumber, startOffset: startOffset, endOffset: endOffset, truncated: false,
            fileBytesRead: fileBytesRead, fileSize: fileSize)
        line.member = member
        return line
    }
}
