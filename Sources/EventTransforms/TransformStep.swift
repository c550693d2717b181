import JSONCore

/// One step of a `transform:` section, as configured: a description that any thread may share
/// (``EventTransformer`` compiles it, jq included, for its own thread).
package enum TransformStep: Sendable, Equatable {
    /// Moves the value at `from` to `to` (see ``StepKind/rename``).
    case rename(from: FieldPath, to: FieldPath)
    /// Writes `value` at `path`; with `ifAbsent`, only where nothing is there yet.
    case set(path: FieldPath, value: JSONValue, ifAbsent: Bool)
    /// Removes each of these paths that is present.
    case delete([FieldPath])
    /// Renames track events (their `event`).
    case mapEvents(EventNameMap)
    /// Drops the events that do not match.
    case keep(EventCondition)
    /// Drops the events that match.
    case drop(EventCondition)
    /// For identify events: copies these `properties` members into `traits` where `traits` lacks them.
    case copyPropertiesToTraits(TraitSelection)
    /// Runs a jq expression on the event: no output drops it, one object replaces it.
    case jq(String)

    /// The step's kind, as written in a configuration.
    package var kind: StepKind {
        switch self {
        case .rename: .rename
        case .set: .set
        case .delete: .delete
        case .mapEvents: .mapEvents
        case .keep: .keep
        case .drop: .drop
        case .copyPropertiesToTraits: .copyPropertiesToTraits
        case .jq: .jq
        }
    }
}

/// The kinds of step, by the key that introduces each in a configuration.
package enum StepKind: String, Sendable, CaseIterable {
    /// `rename: {from: PATH, to: PATH}`.
    case rename
    /// `set: {path: PATH, value: ANY, if_absent: BOOL}`.
    case set
    /// `delete: PATH` or `delete: [PATH, ...]`.
    case delete
    /// `map_events: {"Old Name": "New Name", ...}`.
    case mapEvents = "map_events"
    /// `keep: CONDITION`.
    case keep
    /// `drop: CONDITION`.
    case drop
    /// `copy_properties_to_traits: [KEY, ...]` or `all`.
    case copyPropertiesToTraits = "copy_properties_to_traits"
    /// `jq: EXPRESSION`.
    case jq
}

/// Which `properties` members ``TransformStep/copyPropertiesToTraits(_:)`` copies.
package enum TraitSelection: Sendable, Equatable {
    /// Every member of `properties`.
    case all
    /// These keys, in this order.
    case keys([String])
}
