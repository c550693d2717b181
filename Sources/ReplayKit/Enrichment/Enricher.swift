import Foundation
import JSONCore

/// Turns one input line into a correct, enriched event or a clear rejection.
///
/// Enrichment has two parts: ``LinePreparer`` does everything a line decides alone (and may run
/// on worker threads, see ``LineWalker``); ``finish(_:sequence:)`` applies identity carry-forward
/// and learning in read order. ``process(_:lineNumber:sequence:)`` does both for one line.
/// See `docs/enrichment.md`. Not thread-safe: one enricher per pipeline, fed in read order.
public final class Enricher {
    /// The `context.library.version` written into every event.
    public static let libraryVersion = "0.1.0"

    let config: ReplayConfig
    let identity: IdentityStore
    /// The preparer used for lines processed in read order.
    let preparer: LinePreparer
    /// What enrichment did so far.
    public internal(set) var stats = EnrichStats()

    /// Creates an enricher. `nowMillis` is the clock for `default_timestamp: now` (injectable for tests).
    public init(config: ReplayConfig, identity: IdentityStore, nowMillis: @escaping @Sendable () -> Int64 = Enricher.systemMillis) {
        self.config = config
        self.identity = identity
        self.preparer = LinePreparer(config: config, deviceAnonymousId: identity.deviceAnonymousId, nowMillis: nowMillis)
    }

    /// The system clock in epoch milliseconds.
    @Sendable public static func systemMillis() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }

    /// Enriches one line. `sequence` is a global, increasing number for this line in read order,
    /// used to tag identity mappings learned from it (see ``IdentityStore/commit(throughSequence:)``).
    public func process(_ line: UnsafeBufferPointer<UInt8>, lineNumber: Int, sequence: UInt64) -> EnrichResult {
        finish(preparer.prepare(line, lineNumber: lineNumber, inOrder: identity), sequence: sequence)
    }

    /// Finishes a line prepared on another thread (`prepared` came from a preparer without the
    /// identity store), in read order. Lines the worker could not prepare are prepared again here.
    func finish(_ prepared: consuming PreparedLine, line: UnsafeBufferPointer<UInt8>, lineNumber: Int, sequence: UInt64) -> EnrichResult {
        if case .deadLetter(LinePreparer.needsReadOrder, _) = prepared {
            return process(line, lineNumber: lineNumber, sequence: sequence)
        }
        return finish(prepared, sequence: sequence)
    }

    /// Applies carry-forward (where the preparer left marks), learns identities from the event
    /// and counts the outcome.
    func finish(_ prepared: consuming PreparedLine, sequence: UInt64) -> EnrichResult {
        switch consume prepared {
        case .blank:
            stats.blank += 1
            return .blank
        case .deadLetter(let reason, let detail):
            stats.deadLetters[reason, default: 0] += 1
            return .deadLetter(reason: reason, detail: detail)
        case .event(var e):
            do {
                try carryForward(&e)
            } catch {
                stats.deadLetters[DeadLetterReason.identityStoreError, default: 0] += 1
                return .deadLetter(reason: DeadLetterReason.identityStoreError, detail: "\(error)")
            }
            // Learn only from lines that become events.
            if let u = e.ownUserId, e.type == .identify || e.type == .alias {
                identity.learnUser(anonymousId: e.anonymousId, userId: u, sequence: sequence)
            }
            if let g = e.groupIdOfGroup, let u = e.ownUserId ?? e.carriedUserId {
                identity.learnGroup(userId: u, groupId: g, sequence: sequence)
            }
            stats.add(e.counts)
            return .event(bytes: e.bytes, messageId: e.messageId, orderingKey: e.anonymousId)
        }
    }

    /// Looks up carried identities for the marks a worker left and splices them into the bytes.
    private func carryForward(_ e: inout PreparedEvent) throws {
        var splices: [(mark: RenderedMark, key: String, value: String, order: Int)] = []
        if let mark = e.userIdMark, let carried = try identity.userId(forAnonymousId: e.anonymousId) {
            e.carriedUserId = carried
            e.counts.userIdCarried = true
            splices.append((mark, "userId", carried, 0))
        }
        if let mark = e.groupIdMark, let u = e.ownUserId ?? e.carriedUserId, let carried = try identity.groupId(forUserId: u) {
            e.counts.groupIdCarried = true
            splices.append((mark, "groupId", carried, 1))
        }
        e.userIdMark = nil
        e.groupIdMark = nil
        guard !splices.isEmpty else { return }
        // Back to front, so earlier offsets stay valid; at one offset the later member goes in
        // first, so the members end up in the order they would have been appended.
        splices.sort { ($0.mark.range.lowerBound, $0.order) > ($1.mark.range.lowerBound, $1.order) }
        for s in splices {
            let r = s.mark.range
            let followed = r.upperBound < e.bytes.count && e.bytes[r.upperBound] != UInt8(ascii: "}")
            let bytes = s.mark.replacement(key: s.key, value: JSONStrings.quoted(s.value), followedByMember: followed)
            e.bytes.replaceSubrange(r, with: bytes)
        }
    }
}
