/// What the steps did, step by step, for `validate` and the dry run: a value each transformer
/// keeps for its thread, which the caller reads and merges.
package struct TransformCounters: Sendable, Equatable {
    /// What one step did.
    package struct Step: Sendable, Equatable {
        /// Events the step changed (and that it did not drop).
        package var changed = 0
        /// Events the step dropped.
        package var dropped = 0
        /// Events the step failed on.
        package var failed = 0

        /// Counts of zero.
        package init() {}
    }

    /// Events given to the transformer, unreadable ones included.
    package var events = 0
    /// Events that went through every step.
    package var kept = 0
    /// Events that could not be read (not a JSON object); no step saw them.
    package var unreadable = 0
    /// One entry per step, in order.
    package var steps: [Step]

    /// Counts of zero for `stepCount` steps.
    package init(stepCount: Int) {
        steps = Array(repeating: Step(), count: stepCount)
    }

    /// Events dropped by any step.
    package var dropped: Int { steps.reduce(0) { $0 + $1.dropped } }
    /// Events any step failed on.
    package var failed: Int { steps.reduce(0) { $0 + $1.failed } }

    /// Adds `other`'s counts (another thread's, for the same plan) to these.
    package mutating func merge(_ other: TransformCounters) {
        events += other.events
        kept += other.kept
        unreadable += other.unreadable
        if steps.count < other.steps.count { steps += Array(repeating: Step(), count: other.steps.count - steps.count) }
        for (i, s) in other.steps.enumerated() {
            steps[i].changed += s.changed
            steps[i].dropped += s.dropped
            steps[i].failed += s.failed
        }
    }
}
