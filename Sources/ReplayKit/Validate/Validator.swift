import JSONCore
import ReplayConfiguration

/// One rejected line, for the `validate` listing.
public struct ValidationProblem: Sendable, Equatable {
    /// The input path (`-` for stdin).
    public let source: String
    /// 1-based line number.
    public let line: Int
    /// The dead-letter reason code.
    public let reason: String
    /// A human explanation.
    public let detail: String

    /// `file:line: reason: detail`.
    public var formatted: String { "\(source):\(line): \(reason): \(detail)" }
}

/// The result of `mr-replay validate`.
public struct ValidationSummary: Sendable {
    /// Lines read (valid + invalid + blank + skipped); with a recipe or transforms, what was read
    /// of the records (an event, a dead letter or a rule's verdict each), as a run's report counts.
    public var lines = 0
    /// Lines that would be sent.
    public var valid = 0
    /// Lines that would be dead-lettered.
    public var invalid = 0
    /// Empty or whitespace-only lines.
    public var blank = 0
    /// Invalid lines by reason.
    public var reasons: [String: Int] = [:]
    /// Events that would be settled without being sent, by ``SkipReason`` (`expired`, ...).
    public var skipped: [String: Int] = [:]
    /// What a person should know about the inputs (empty, damaged, purged).
    public var warnings: [String] = []
    /// The first problems, in read order.
    public var problems: [ValidationProblem] = []
    /// Enrichment counters (privacy actions and so on).
    public var stats = EnrichStats()
    /// What the inputs would send: types, names, time span, ids (``TrialSummary``).
    public var trial = TrialSummary()

    /// Whether every non-blank line is valid.
    public var allValid: Bool { invalid == 0 }

    /// The `--json` form: `{"lines":..,"valid":..,"invalid":..,"blank":..,"reasons":{..},"skipped":{..},"warnings":[..],"summary":{..}}`
    /// (`summary`: ``TrialSummary/json``).
    public var json: String {
        func counts(_ d: [String: Int]) -> JSONValue {
            .object(JSONObject(d.keys.sorted().map { ($0, JSONValue.number(JSONNumber(d[$0]!))) }))
        }
        let value: JSONValue = .object(
            JSONObject([
                ("lines", .number(JSONNumber(lines))), ("valid", .number(JSONNumber(valid))),
                ("invalid", .number(JSONNumber(invalid))), ("blank", .number(JSONNumber(blank))),
                ("reasons", counts(reasons)), ("skipped", counts(skipped)), ("warnings", .array(warnings.map { .string($0) })),
                ("summary", trial.json),
            ]))
        return value.encodedString
    }

    /// The human form: a summary line, reasons, the trial summary, then the listed problems.
    public var text: String {
        // A recipe's or a transform's records become several items, or none: count what was read.
        let what = trial.recipe != nil || !trial.transformSteps.isEmpty ? "read" : "lines"
        var out = "\(lines) \(what): \(valid) valid, \(invalid) invalid, \(blank) blank"
        out += skipped.keys.sorted().map { ", \(skipped[$0]!) \($0) (not sent)" }.joined() + "\n"
        for key in reasons.keys.sorted() { out += "  \(key): \(reasons[key]!)\n" }
        out += trial.text
        for warning in warnings { out += "warning: \(warning)\n" }
        if !problems.isEmpty {
            out += "first \(problems.count) problem\(problems.count == 1 ? "" : "s"):\n"
            for p in problems { out += p.formatted + "\n" }
        }
        return out
    }
}

/// `mr-replay validate`: reads everything, changes no state.
public enum Validator {
    /// Validates `inputs` with `config`, keeping the first `maxProblems` problems. Uses a private
    /// in-memory identity store and writes no dead letters.
    public static func validate(
        config: ReplayConfig, inputs: [InputSource], maxProblems: Int = 20,
        nowMillis: (() -> Int64)? = nil
    ) throws -> ValidationSummary {
        let nowMillis = nowMillis ?? Enricher.systemMillis
        let identity = try IdentityStore(stateDirectory: nil)
        defer { identity.close() }
        let enricher = Enricher(config: config, identity: identity, nowMillis: nowMillis)
        var summary = ValidationSummary()
        // The hot path: events are rendered and dropped, only the outcomes are counted.
        let output = EventBuffer()
        var warnings: [String] = []
        try LineWalker.walkRendered(
            inputs: inputs, config: config, enricher: enricher, output: output, onWarning: { warnings.append($0) }
        ) { item in
            summary.trial.count(item, enricher: enricher, output: output)
            output.bytes.removeAll(keepingCapacity: true)
            summary.lines += 1
            switch item.result {
            case .event: summary.valid += 1
            case .blank: summary.blank += 1
            case .skipped(let reason): summary.skipped[reason.rawValue, default: 0] += 1
            case .deadLetter(let reason, let detail):
                summary.invalid += 1
                summary.reasons[reason, default: 0] += 1
                if summary.problems.count < maxProblems {
                    summary.problems.append(
                        ValidationProblem(source: inputs[item.inputIndex].path, line: item.line.lineNumber, reason: reason, detail: detail))
                }
            }
            return true
        }
        summary.stats = enricher.stats
        summary.trial.finish(enricher, config: config)
        summary.warnings = warnings
        return summary
    }
}
