import Foundation
import JSONCore
@_spi(PerLine) import MetaRouterDelivery
import ReplayConfiguration

/// Turns one input line into a correct, enriched event or a clear rejection.
///
/// ``LinePreparer`` validates and enriches the line; ``finish(_:sequence:line:)`` then lets the identity
/// store learn from it and counts the outcome. See `docs/enrichment.md`.
/// Not thread-safe: one enricher per pipeline, fed in read order.
package final class Enricher {
    package let identity: IdentityStore
    /// Validation and the per-line rules.
    // Unchecked: the enricher is used by one thread at a time (it is not Sendable), and no
    // access to `preparer` or `stats` starts while another is under way: `prepare` reaches the
    // identity store and the output buffer, never the enricher. The checks cost about a tenth
    // of a line's time (they also keep the optimizer from holding the state in registers).
    @exclusivity(unchecked) package var preparer: LinePreparer
    /// What enrichment did so far.
    @exclusivity(unchecked) package internal(set) var stats = EnrichStats()
    /// In an identity-sharded run, which lines are this shard's (``ShardRouter``); nil otherwise.
    // Unchecked, as `preparer` is: the walk reads it, and in a sharded run routes through it,
    // on every line (a checked access cost 0.6 % of a dry run). It is set only before a run,
    // one thread uses the enricher, and `route` reaches nothing of the enricher, so no access
    // to it starts while another is under way.
    @exclusivity(unchecked) var shardRouter: ShardRouter?

    /// What is done to each record before it is prepared (a vendor's recipe, the transforms),
    /// made by the walk that first needs it; nil when records go through as they are.
    var converter: RecordConverter?

    /// Whether events teach the identity store as they are prepared (true but in a partitioned
    /// run, whose store learns from the partition's transitions instead, own lines' included:
    /// ``IdentityTransition``).
    var learnsFromLines = true

    /// Creates an enricher. `nowMillis` is the clock for `default_timestamp: now` (injectable for tests).
    package init(config: ReplayConfig, identity: IdentityStore, nowMillis: @escaping () -> Int64 = Enricher.systemMillis) {
        self.identity = identity
        self.preparer = LinePreparer(config: config, deviceAnonymousId: identity.deviceAnonymousId, nowMillis: nowMillis)
    }

    /// The system clock in epoch milliseconds.
    package static func systemMillis() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    /// Enriches one line and renders its event at the end of `out` (nothing is appended for a
    /// blank or rejected line). `sequence` is a global, increasing number for this line in read
    /// order, used to tag identity mappings learned from it (see
    /// ``IdentityStore/commit(throughSequence:metadata:)``).
    package func process(
        _ line: UnsafeBufferPointer<UInt8>, lineNumber: Int, sequence: UInt64, into out: inout [UInt8]
    ) -> LineOutcome<RenderedEvent> {
        finish(preparer.prepare(line, lineNumber: lineNumber, identity: identity, into: &out), sequence: sequence, line: line)
    }

    /// Prepares another shard's line only to learn what it teaches the identity store (see
    /// ``ShardRouter`` and ``LinePreparer/prepareToLearn(_:identity:)``): nothing is rendered and
    /// nothing is counted but the skip. `sequence` tags what it teaches, as for
    /// ``process(_:lineNumber:sequence:into:)``.
    func learnOnly(_ line: UnsafeBufferPointer<UInt8>, sequence: UInt64) -> LineOutcome<RenderedEvent> {
        guard learnsFromLines else { return skipped(.otherShard) }
        if preparer.prepareToLearn(line, identity: identity) {
            preparer.withEvent { learn(from: $0, sequence: sequence, line: line) }
        }
        return skipped(.otherShard)
    }

    /// Counts and returns a dead letter: for rejected lines, and for what the reader could not
    /// hand over whole (an over-long line, the rest of an unreadable input).
    func deadLetter(_ reason: String, _ detail: String) -> LineOutcome<RenderedEvent> {
        stats.deadLetters[reason, default: 0] += 1
        return .deadLetter(reason: reason, detail: detail)
    }

    /// Counts and returns an event settled by a rule (expired, consent, already delivered).
    func skipped(_ reason: SkipReason) -> LineOutcome<RenderedEvent> {
        stats.skipped[reason.rawValue, default: 0] += 1
        return .skipped(reason)
    }

    /// Learns identities from a prepared line's event (``LinePreparer/event``, rendered at
    /// `range`) and counts the outcome. `line` is the line the event was prepared from (its ids
    /// refer to it).
    private func finish(
        _ prepared: LineOutcome<Range<Int>>, sequence: UInt64, line: UnsafeBufferPointer<UInt8>
    ) -> LineOutcome<RenderedEvent> {
        switch prepared {
        case .blank:
            stats.blank += 1
            return .blank
        case .deadLetter(let reason, let detail):
            return deadLetter(reason, detail)
        case .skipped(let reason):
            return skipped(reason)
        case .event(let range):
            stats.add(preparer.counts)
            return preparer.withEvent { e in
                if learnsFromLines { learn(from: e, sequence: sequence, line: line) }
                return .event(RenderedEvent(range: range, laneKey: e.anonymousId.laneKey(line)))
            }
        }
    }

    /// Lets the identity store learn from an event line: login, logout and alias (see
    /// ``AliasTransition``). Only lines that become events teach; a derived anonymousId is its
    /// userId's alone, and a placeholder is nobody's, so there is nothing to carry from them or
    /// to end for them. Every row a line changes has its `sequence`, so they are committed
    /// together.
    func learn(from e: PreparedEvent, sequence: UInt64, line: UnsafeBufferPointer<UInt8>) {
        if let u = e.ownUserId, e.type == .identify || e.type == .alias {
            u.withBytes(line) { u in
                if e.anonymousIdCarries {
                    e.anonymousId.withBytes(line) { identity.learnUser(anonymousId: $0, userId: u, sequence: sequence) }
                }
                guard let alias = e.alias else { return }
                alias.previousId.withBytes(line) { identity.learnUser(anonymousId: $0, userId: u, sequence: sequence) }
                alias.movedGroup?.withRaw { identity.learnGroup(userId: u, groupId: $0, sequence: sequence) }
            }
        }
        if e.isLogout, e.anonymousIdCarries {
            e.anonymousId.withBytes(line) { identity.forgetUser(anonymousId: $0, sequence: sequence) }
        }
        guard let g = e.groupIdOfGroup else { return }
        if let u = e.ownUserId {
            u.withBytes(line) { u in g.withBytes(line) { identity.learnGroup(userId: u, groupId: $0, sequence: sequence) } }
        } else if let u = e.carriedUserId {
            u.withRaw { u in g.withBytes(line) { identity.learnGroup(userId: u, groupId: $0, sequence: sequence) } }
        }
    }
}
