import Foundation
@_spi(PerLine) import MetaRouterDelivery

/// What became of one input line, at every stage: `Event` is what an event carries there.
///
/// - ``LinePreparer`` gives `LineOutcome<Range<Int>>` (where the event was rendered; the ids
///   the identity store may learn from it stay in ``LinePreparer/event``);
/// - ``Enricher`` finishes it into `LineOutcome<RenderedEvent>`, the hot path's outcome: the
///   event's bytes are in an ``EventBuffer`` and its identity is a hash, so nothing is
///   allocated per event.
package enum LineOutcome<Event> {
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
    package func map<Other>(_ transform: (Event) throws -> Other) rethrows -> LineOutcome<Other> {
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
