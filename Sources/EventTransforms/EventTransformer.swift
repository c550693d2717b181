import JSONCore

/// Runs a ``TransformPlan`` on events, one at a time, on one thread.
///
/// Not `Sendable`: it owns compiled jq programs (whose state is not thread-safe) and scratch
/// storage reused from event to event. Share the plan, and make one transformer per thread.
package final class EventTransformer {
    /// A step ready to run.
    private enum CompiledStep {
        /// A declarative step: its kind and what runs it.
        case declarative(StepKind, TransformStep.Runner)
        /// A jq step and its compiled program.
        case jq(JQProgram)
    }

    /// The plan this transformer runs.
    package let plan: TransformPlan
    /// What the steps did so far (see ``takeCounters()``).
    // Unchecked: a transformer is used by one thread (not Sendable), and no method holds an
    // access to the counters across a call that reaches them again.
    @exclusivity(unchecked) package private(set) var counters: TransformCounters
    /// The storage of the event being transformed, kept between events (``apply(_:into:)``
    /// moves it into a local variable while it works).
    private var spareDocument = EventDocument()
    /// Scratch storage for an edited event rendered for a jq step.
    private var jqInput: [UInt8] = []
    /// The steps, compiled.
    private let steps: [CompiledStep]

    /// Compiles `plan` (its jq expressions) for this thread.
    package init(_ plan: TransformPlan) throws(TransformConfigError) {
        var steps: [CompiledStep] = []
        for (offset, step) in plan.steps.enumerated() {
            if let runner = step.runner() {
                steps.append(.declarative(step.kind, runner))
            } else if case .jq(let expression) = step {
                steps.append(.jq(try JQProgram(compiling: expression, step: offset + 1)))
            }
        }
        self.plan = plan
        self.steps = steps
        self.counters = TransformCounters(stepCount: steps.count)
    }

    /// Returns the counters so far and starts again from zero.
    package func takeCounters() -> TransformCounters {
        defer { counters = TransformCounters(stepCount: steps.count) }
        return counters
    }

    /// Runs every step on `event` (the bytes of one JSON object). When the event is kept, its
    /// new compact JSON is appended to `out`; when it is dropped or a step fails, `out` is left
    /// as it was.
    package func apply(_ event: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) throws(TransformFailure) -> TransformOutcome {
        counters.events += 1
        // The document works in a local variable (no access to this object's storage per step),
        // then goes back, unloaded, for the next event.
        var document = EventDocument()
        swap(&document, &spareDocument)
        defer {
            document.unload()
            swap(&document, &spareDocument)
        }
        do throws(JSONError) {
            try document.load(event, compact: false)
        } catch {
            counters.unreadable += 1
            throw TransformFailure.unreadable(error, event)
        }
        let outcome = try run(&document, from: 0, changed: false, into: &out)
        if case .kept = outcome { counters.kept += 1 }
        return outcome
    }

    /// Runs the steps from index `first` on `document`, then renders it to `out`. `changed`: an
    /// earlier step changed the event.
    private func run(
        _ document: inout EventDocument, from first: Int, changed: Bool, into out: inout [UInt8]
    ) throws(TransformFailure) -> TransformOutcome {
        var changed = changed
        for index in first..<steps.count {
            let effect: StepEffect
            switch steps[index] {
            case .declarative(let kind, let runner):
                do throws(StepFailure) {
                    effect = try runner(&document)
                } catch {
                    throw failure(index, kind, error)
                }
            case .jq(let program):
                let result: JQResult
                do throws(StepFailure) {
                    result = try runJQ(program, on: document)
                } catch {
                    throw failure(index, .jq, error)
                }
                switch result {
                case .dropped: effect = .drop
                case .unchanged: effect = .unchanged
                case .replaced(let bytes):
                    counters.steps[index].changed += 1
                    return try continueWith(bytes, &document, after: index, into: &out)
                }
            }
            switch effect {
            case .unchanged: break
            case .changed:
                counters.steps[index].changed += 1
                changed = true
            case .drop:
                counters.steps[index].dropped += 1
                return .dropped(step: index + 1)
            }
        }
        document.render(into: &out)
        return .kept(changed: changed)
    }

    /// Runs the steps after `index` on `bytes`, the compact JSON a jq step made of the event,
    /// loaded into `document`.
    private func continueWith(
        _ bytes: [UInt8], _ document: inout EventDocument, after index: Int, into out: inout [UInt8]
    ) throws(TransformFailure) -> TransformOutcome {
        try bytes.withUnsafeBufferPointer { (buffer) throws(TransformFailure) -> TransformOutcome in
            // `buffer` outlives every use of the document loaded from it: the steps after this
            // one and the render all happen inside this closure, and `apply` unloads the
            // document before returning.
            do throws(JSONError) {
                try document.load(buffer, compact: true)
            } catch {
                // jq's output nests deeper than the event reader accepts.
                throw failure(index, .jq, StepFailure("the expression produced an event that cannot be read: \(error)"))
            }
            return try run(&document, from: index + 1, changed: true, into: &out)
        }
    }

    /// Runs `program` on `document` as it stands.
    private func runJQ(_ program: JQProgram, on document: borrowing EventDocument) throws(StepFailure) -> JQResult {
        if !document.isEdited {
            return try program.run(document.source, document.objectRange)
        }
        jqInput.removeAll(keepingCapacity: true)
        document.render(into: &jqInput)
        return try jqInput.withUnsafeBufferPointer { (buffer) throws(StepFailure) -> JQResult in
            try program.run(buffer, 0..<buffer.count)
        }
    }

    /// Counts a failure of step `index` and describes it.
    private func failure(_ index: Int, _ kind: StepKind, _ error: StepFailure) -> TransformFailure {
        counters.steps[index].failed += 1
        return TransformFailure.step(index + 1, kind, error.message)
    }
}

/// A transformer belongs to one thread (see ``EventTransformer``).
@available(*, unavailable)
extension EventTransformer: Sendable {}
