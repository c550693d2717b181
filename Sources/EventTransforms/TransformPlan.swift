import JSONCore

/// The steps of a `transform:` section, in order: a checked description that threads share
/// (it is `Sendable`); each thread makes its own ``EventTransformer`` from it.
package struct TransformPlan: Sendable, Equatable {
    /// The steps, in the order they run.
    package let steps: [TransformStep]

    /// A plan of these steps, unchecked: a jq expression that does not compile fails when an
    /// ``EventTransformer`` is made. Configurations go through ``init(parsing:)``.
    package init(steps: [TransformStep]) {
        self.steps = steps
    }

    /// Reads a `transform:` section (converted from YAML by the caller): a list of steps, each a
    /// mapping with one step kind. `null` (an empty section) is a plan of no steps. Every jq
    /// expression is compiled once here, so a compile error is reported with its step.
    package init(parsing section: JSONValue) throws(TransformConfigError) {
        if section.isNull {
            self.init(steps: [])
            return
        }
        guard case .array(let items) = section else {
            throw TransformConfigError(
                "the section must be a list of steps (- rename: ..., - jq: ...), found \(ConfigValues.describe(section))", step: 0)
        }
        var steps: [TransformStep] = []
        steps.reserveCapacity(items.count)
        for (offset, item) in items.enumerated() {
            let step = try StepParser.parse(item, index: offset + 1)
            if case .jq(let expression) = step {
                // Compiled here only to check it; each transformer compiles its own copy.
                _ = try JQProgram(compiling: expression, step: offset + 1)
            }
            steps.append(step)
        }
        self.init(steps: steps)
    }

    /// Whether the plan has no steps (every event passes unchanged).
    package var isEmpty: Bool { steps.isEmpty }
}
