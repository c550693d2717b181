import RunReporting

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
    /// A transform dropped the event (``RecordConverter``); counted as `filtered`.
    case droppedByTransform = "dropped_by_transform"
    /// A vendor's record that is no event (an Amplitude session's start or end); counted as
    /// `filtered`.
    case noEvent = "no_event"

    /// Whether the report counts it as `filtered` (a choice of what to send, not a verdict on the event).
    var isFilter: Bool {
        switch self {
        case .outsideWindow, .otherShard, .droppedByTransform, .noEvent: true
        case .expired, .consentDropped, .alreadyDelivered: false
        }
    }
}

extension RunReport.Events {
    /// Counts one event settled by a rule.
    mutating func add(_ reason: SkipReason) {
        switch reason {
        case .expired: expired += 1
        case .consentDropped: consentDropped += 1
        case .alreadyDelivered: alreadyDelivered += 1
        case .outsideWindow, .otherShard, .droppedByTransform, .noEvent: filtered += 1
        }
    }
}
