import EventTransforms
import JSONCore

/// A plan read from JSON text: what the caller's YAML conversion hands over.
func plan(_ json: String) throws -> TransformPlan {
    try TransformPlan(parsing: JSONValue(parsing: json))
}

/// One event through a transformer: its outcome and the bytes appended to the output.
struct Transformed {
    /// What became of the event.
    var outcome: TransformOutcome
    /// The bytes appended to the output (empty when dropped).
    var text: String

    /// The appended JSON as a value (nil when nothing was appended).
    var value: JSONValue? {
        text.isEmpty ? nil : try? JSONValue(parsing: text)
    }
}

/// Runs `event` through `transformer`.
func run(_ transformer: EventTransformer, _ event: String) throws(TransformFailure) -> Transformed {
    var out: [UInt8] = []
    let bytes = Array(event.utf8)
    let outcome = try bytes.withUnsafeBufferPointer { (buffer) throws(TransformFailure) -> TransformOutcome in
        try transformer.apply(buffer, into: &out)
    }
    return Transformed(outcome: outcome, text: String(decoding: out, as: UTF8.self))
}

/// Runs `event` through a transformer of the steps in `steps` (JSON text).
func run(_ steps: String, _ event: String) throws -> Transformed {
    try run(EventTransformer(plan(steps)), event)
}

/// The failure of `event` through the steps in `steps`; nil when it did not fail.
func failure(_ steps: String, _ event: String) throws -> TransformFailure? {
    let transformer = try EventTransformer(plan(steps))
    do throws(TransformFailure) {
        _ = try run(transformer, event)
        return nil
    } catch {
        return error
    }
}

/// The configuration error of `steps` (JSON text); nil when it parses.
func configError(_ steps: String) throws -> TransformConfigError? {
    let section = try JSONValue(parsing: steps)
    do throws(TransformConfigError) {
        _ = try TransformPlan(parsing: section)
        return nil
    } catch {
        return error
    }
}

/// `text` parsed as JSON.
func json(_ text: String) throws -> JSONValue {
    try JSONValue(parsing: text)
}
