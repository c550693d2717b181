@_spi(PerLine) import MetaRouter
import Foundation

/// What became of one input line, at every stage: `Event` is what an event carries there.
///
/// - ``LinePreparer`` gives `LineOutcome<PreparedEvent>` (the event and the ids the identity
///   store may learn from it);
/// - ``Enricher`` finishes it into `LineOutcome<RenderedEvent>`, the hot path's outcome: the
///   event's bytes are in an ``EventBuffer`` and its identity is a hash, so nothing is
///   allocated per event.
enum LineOutcome<Event> {
    /// A correct, enriched event (it always has a `messageId`).
    case event(Event)
    /// An empty or whitespace-only line: skipped and counted.
    case blank
    /// A rejected line; `reason` is a stable code such as `invalid_json` (``DeadLetterReason``).
    case deadLetter(reason: String, detail: String)
    /// An event settled without being sent, by a rule rather than a failure (see ``SkipReason``).
    case skipped(SkipReason)

    /// The same outcome carrying `transform(event)` for an event.
    @inline(__always)
    func map<Other>(_ transform: (Event) throws -> Other) rethrows -> LineOutcome<Other> {
        switch self {
        case .event(let e): return .event(try transform(e))
        case .blank: return .blank
        case .deadLetter(let reason, let detail): return .deadLetter(reason: reason, detail: detail)
        case .skipped(let reason): return .skipped(reason)
        }
    }
}

extension LineOutcome: Equatable where Event: Equatable {}

extension LineOutcome: Sendable where Event: Sendable {}

/// An enriched event on the hot path: where it sits in the ``EventBuffer``, and its lane.
struct RenderedEvent: Equatable, Sendable {
    /// The event's bytes in the buffer it was rendered into.
    var range: Range<Int>
    /// The FNV-1a hash of the event's anonymousId's bytes: what the engine's lanes and
    /// `--shard` hash the ordering key to.
    var laneKey: UInt64
}

/// Enriched events rendered back to back into one growing buffer, shared by the code that
/// enriches lines and the code that consumes the events (a dry run's output, a run's chunk).
/// A class so both sides can reach it while a walk is under way; used by one thread at a time.
final class EventBuffer {
    /// The rendered events, back to back (see ``RenderedEvent/range``).
    var bytes: [UInt8] = []

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }
}

/// Why an event is settled without being sent or dead-lettered: a policy, not a failure.
/// Nothing of such an event is stored.
package enum SkipReason: String, Sendable, Equatable, CaseIterable {
    /// Older than the input's `max_event_age` (the SDK's 7-day rule for snapshots).
    case expired
    /// Consent denies sending (or, with `privacy.require_consent`, no consent was given), or a
    /// later revocation in the same SDK queue purged it.
    case consentDropped = "consent_dropped"
    /// An event an earlier run already settled: in a rewritten snapshot (found by messageId), or
    /// on a line past a resumed input's checkpoint (``SettledLines``).
    case alreadyDelivered = "already_delivered"
    /// The event's time is outside the run's `--since`/`--until` window (``TimeWindow``); the
    /// run report counts it as `filtered`.
    case outsideWindow = "outside_window"
    /// Another shard's line, in a sharded run (``ShardRouter``); the run report counts it as
    /// `filtered`.
    case otherShard = "other_shard"
}

/// The stable dead-letter reason codes.
package enum DeadLetterReason {
    /// The line is not valid JSON.
    package static let invalidJSON = "invalid_json"
    /// Valid JSON but not an object.
    package static let notAnObject = "not_an_object"
    /// The line is not valid UTF-8.
    package static let invalidUTF8 = "invalid_utf8"
    /// No string `type`.
    package static let missingType = "missing_type"
    /// `type` is not track/identify/page/screen/group/alias.
    package static let unknownType = "unknown_type"
    /// A track event without `event`.
    package static let missingEventName = "missing_event_name"
    /// A group event without `groupId`.
    package static let missingGroupId = "missing_group_id"
    /// No `timestamp` (and `enrichment.default_timestamp` is not `now`).
    package static let missingTimestamp = "missing_timestamp"
    /// `timestamp` is not an ISO-8601 timestamp (the forms ``Timestamp`` accepts).
    package static let invalidTimestamp = "invalid_timestamp"
    /// `context` (or `context.device`/`app`/`os`) is present but not an object.
    package static let invalidContext = "invalid_context"
    /// The line is longer than `batching.max_event_bytes`.
    package static let tooLarge = "too_large"
    /// A snapshot whose bytes from a break to the end could not be read (cut short or damaged).
    package static let damagedSnapshot = "damaged_snapshot"
    /// A snapshot of a version this mr-replay cannot read (`validate` only: `run` refuses it).
    package static let unsupportedSnapshot = "unsupported_snapshot"
    /// Neither `anonymousId` nor `userId`, and `enrichment.identity.device_lines` is `reject`.
    package static let missingIdentity = "missing_identity"
    /// An `alias` without a `previousId` or a `userId`.
    package static let invalidAlias = "invalid_alias"
    /// An input could not be read to its end (e.g. truncated gzip); reported once per input.
    package static let readError = "read_error"
    /// The identity database failed.
    package static let identityStoreError = "identity_store_error"
}
