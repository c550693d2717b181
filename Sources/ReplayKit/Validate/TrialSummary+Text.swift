import JSONCore
import RunReporting
import Timestamps

extension TrialSummary {
    /// How many names the text lists (the JSON form has them all).
    static let namesListed = 20

    /// The human form, a few lines:
    ///
    /// ```
    /// would send 9,812 events from 10,000 records (amplitude), 2025-03-01T00:00:00.000Z to 2025-03-31T23:59:59.000Z
    ///   types: track 9,500, identify 300, page 12
    ///   names (41): track Song Played 4,100, track Checkout Started 900, ...
    ///   messageId: 9,700 given, 112 derived by the recipe, 0 generated
    ///   userId: 6,000 given, 2,000 carried; anonymousId: 9,000 given, 800 derived from the userId, 12 the device's
    ///   transforms: 1 drop: 40 dropped; 2 set: 9,812 changed
    /// ```
    public var text: String {
        var out = "would send \(CountText.of(events)) events from \(CountText.of(records)) records"
        if let recipe { out += " (\(recipe))" }
        if let earliestMillis, let latestMillis {
            out += ", \(Timestamp.iso8601(epochMillis: earliestMillis)) to \(Timestamp.iso8601(epochMillis: latestMillis))"
        }
        out += "\n  types: " + (types.isEmpty ? "none" : Self.list(types))
        if !names.isEmpty {
            out += "\n  names (\(CountText.of(names.count))\(otherNames > 0 ? "+" : "")): " + Self.list(names, limit: Self.namesListed)
        }
        let generated = enrichment.messageIdsGenerated
        out += "\n  messageId: \(CountText.of(events - messageIdsDerivedByRecipe - generated)) given"
        if recipe != nil { out += ", \(CountText.of(messageIdsDerivedByRecipe)) derived by the recipe" }
        out += ", \(CountText.of(generated)) generated"
        out += "\n  userId: \(CountText.of(userIdsGiven)) given, \(CountText.of(enrichment.userIdsCarried)) carried"
        out += "; anonymousId: \(CountText.of(anonymousIdsGiven)) given, \(CountText.of(enrichment.anonymousIdsDerived)) derived from the userId"
        out += ", \(CountText.of(enrichment.anonymousIdsFilled)) the device's"
        if !transformSteps.isEmpty {
            out += "\n  transforms: "
            out += transformSteps.enumerated().map { i, step in
                let what = [("changed", step.changed), ("dropped", step.dropped), ("failed", step.failed)].filter { $0.1 > 0 }
                return "\(i + 1) \(step.kind): " + (what.isEmpty ? "nothing" : what.map { "\(CountText.of($0.1)) \($0.0)" }.joined(separator: ", "))
            }.joined(separator: "; ")
        }
        if !enrichment.deadLetters.isEmpty { out += "\n  would dead-letter: " + Self.list(enrichment.deadLetters) }
        if !enrichment.skipped.isEmpty { out += "\n  would not send: " + Self.list(enrichment.skipped) }
        return out + "\n"
    }

    /// The JSON form (the `summary` member of `validate --json`).
    public var json: JSONValue {
        func counts(_ d: [String: Int]) -> JSONValue {
            .object(JSONObject(d.keys.sorted().map { ($0, JSONValue.number(JSONNumber(d[$0]!))) }))
        }
        func number(_ n: Int) -> JSONValue { .number(JSONNumber(n)) }
        var members: [(String, JSONValue)] = [
            ("records", number(records)), ("events", number(events)), ("types", counts(types)), ("names", counts(names)),
            ("other_names", number(otherNames)),
            ("earliest", earliestMillis.map { .string(Timestamp.iso8601(epochMillis: $0)) } ?? .null),
            ("latest", latestMillis.map { .string(Timestamp.iso8601(epochMillis: $0)) } ?? .null),
            (
                "message_ids",
                .object(
                    JSONObject([
                        ("given", number(events - messageIdsDerivedByRecipe - enrichment.messageIdsGenerated)),
                        ("derived_by_recipe", number(messageIdsDerivedByRecipe)), ("generated", number(enrichment.messageIdsGenerated)),
                    ]))
            ),
            ("user_ids", .object(JSONObject([("given", number(userIdsGiven)), ("carried", number(enrichment.userIdsCarried))]))),
            (
                "anonymous_ids",
                .object(
                    JSONObject([
                        ("given", number(anonymousIdsGiven)), ("derived_from_user_id", number(enrichment.anonymousIdsDerived)),
                        ("device", number(enrichment.anonymousIdsFilled)),
                    ]))
            ),
            ("dead_letters", counts(enrichment.deadLetters)), ("not_sent", counts(enrichment.skipped)),
        ]
        if let recipe { members.insert(("recipe", .string(recipe)), at: 0) }
        if !transformSteps.isEmpty {
            members.append(
                (
                    "transforms",
                    .array(
                        transformSteps.map { step in
                            .object(
                                JSONObject([
                                    ("step", .string(step.kind)), ("changed", number(step.changed)), ("dropped", number(step.dropped)),
                                    ("failed", number(step.failed)),
                                ]))
                        })
                ))
        }
        return .object(JSONObject(members))
    }

    /// `track 9,500, identify 300`: largest first, then by name; `limit` entries at most.
    static func list(_ counts: [String: Int], limit: Int = .max) -> String {
        let sorted = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        let shown = sorted.prefix(limit).map { "\($0.key) \(CountText.of($0.value))" }
        return shown.joined(separator: ", ") + (sorted.count > limit ? ", ..." : "")
    }
}
