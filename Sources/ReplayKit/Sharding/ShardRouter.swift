import Foundation
import JSONCore
@_spi(PerLine) import MetaRouter
@_spi(PerLine) import MetaRouterDelivery
import ReplayConfiguration

/// Decides, before a line is prepared, what a shard of an identity-sharded run does with it
/// (`--shard K/N`, `--shard-by identity`). See `docs/enrichment.md`, "Sharded runs".
///
/// The shard key is known from the line alone, with a skim of its top-level members (no
/// validation, no copy): its own anonymousId; else, with `user_lines: derived`, the UUIDv5
/// derived from its userId; else the device anonymousId. A placeholder anonymousId
/// (``PlaceholderIds``) is no key. The key is the anonymousId ``LinePreparer`` gives the
/// event, so it is the event's lane key, and the shard is the lane formula over `N`.
///
/// A line of another shard is skipped (not prepared, rendered or sent), except a line that may
/// teach the identity store something another shard's lines read: an `identify`, `alias` or
/// `group`, or a `track` named in `enrichment.identity.logout_events`. Such a line is prepared
/// in every shard, so that every shard's store learns exactly what an unsharded run's does, and
/// is sent only by its own shard. A line that cannot be skimmed (not an object) is shard 0's,
/// as are blank lines' counts in every shard (a blank line is each shard's own).
package struct ShardRouter {
    /// What a shard does with a line.
    package enum Route: Equatable {
        /// The shard's own line: prepared and sent.
        case own
        /// Another shard's line that may teach identities: prepared for that only.
        case learnOnly
        /// Another shard's line: skipped.
        case skip
    }

    let shard: Shard
    /// Where a userId-only line's derived anonymousId is written; nil unless such lines get
    /// one (`user_lines: derived`).
    let derivedIds: DerivedIdBuffer?
    /// The lane key of the device anonymousId.
    let deviceKey: UInt64
    let logoutEvents: LogoutEvents
    /// The skimmed members of the current line (storage reused line to line).
    private var scratch = ObjectLayout()

    package init(shard: Shard, config: ReplayConfig, deviceAnonymousId: String) {
        self.shard = shard
        derivedIds = config.enrichment.identity.userLines == .derived ? DerivedIdBuffer() : nil
        deviceKey = FNV1a.hash(deviceAnonymousId.utf8)
        logoutEvents = LogoutEvents(config.enrichment.identity.logoutEvents)
    }

    /// The route of `line`.
    package mutating func route(_ line: UnsafeBufferPointer<UInt8>) -> Route {
        guard shard.count > 1, !Self.isBlank(line) else { return .own }
        guard ObjectLayout.skimDocument(line, reusing: &scratch) else { return shard.index == 0 ? .own : .skip }
        let top = RouteMembers(scratch, line)
        if LaneRouting.lane(forKey: key(top, line), laneCount: shard.count) == shard.index { return .own }
        return teaches(top, line) ? .learnOnly : .skip
    }

    /// Which of ``shard``'s `count` shards owns `line`, and whether it may teach the identity
    /// store (the partition stage's question): a blank line, and one that cannot be skimmed, is
    /// shard 0's.
    mutating func owner(_ line: UnsafeBufferPointer<UInt8>) -> (shard: Int, teaches: Bool) {
        guard !Self.isBlank(line), ObjectLayout.skimDocument(line, reusing: &scratch) else { return (0, false) }
        let top = RouteMembers(scratch, line)
        return (Self.partitionShard(ofKey: key(top, line), count: shard.count), teaches(top, line))
    }

    /// The shard of a partition that owns lane key `key`, of `count`. Not the lane formula
    /// (`key % count`) that `--shard-by identity` uses: with it, a shard's keys all fall in one
    /// of its engine's lanes whenever the shard count and `batching.concurrency` share a factor
    /// (4 shards of 4 lanes: shard k's events all go to lane k). The key's bits are mixed first,
    /// so a partition shard's events spread over all its lanes.
    static func partitionShard(ofKey key: UInt64, count: Int) -> Int {
        Int(((key &* 0x9E37_79B9_7F4A_7C15) >> 32) % UInt64(count))
    }

    /// The line's shard key (its lane key), as ``LinePreparer``'s identity rules choose its anonymousId.
    func key(_ top: RouteMembers, _ line: UnsafeBufferPointer<UInt8>) -> UInt64 {
        if let own = IdRef(top.anonymousId.map { scratch.members[$0] }, line), !own.withBytes(line, PlaceholderIds.contains) {
            return own.laneKey(line)
        }
        if let derivedIds, let user = IdRef(top.userId.map { scratch.members[$0] }, line) {
            return user.withBytes(line) { FNV1a.hash(derivedIds.derived(userId: $0)) }
        }
        return deviceKey
    }

    /// Whether the line may teach the identity store (by its type, and a track's name).
    func teaches(_ top: RouteMembers, _ line: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let t = top.type.map({ scratch.members[$0] }), t.kind == .string, let type = EventType(jsonString: line, t.value)
        else { return false }
        switch type {
        case .identify, .alias, .group: return true
        case .track:
            guard !logoutEvents.isEmpty, let e = top.event.map({ scratch.members[$0] }), e.kind == .string, e.value.count > 2 else {
                return false
            }
            return logoutEvents.contains(e, line)
        case .page, .screen: return false
        }
    }

    /// Whether the line holds only JSON whitespace.
    @inline(__always)
    static func isBlank(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        for c in line where !c.isJSONWhitespace { return false }
        return true
    }
}

/// The four top-level members a shard's route reads (`type`, `event`, `anonymousId`, `userId`),
/// found as ``TopLevelMembers`` finds them (the last member with the key; escaped keys decoded),
/// with no test for the ten other keys the line's preparation reads.
package struct RouteMembers {
    var type: Int?
    var event: Int?
    var anonymousId: Int?
    var userId: Int?

    init(_ layout: ObjectLayout, _ buf: UnsafeBufferPointer<UInt8>) {
        for idx in layout.members.indices {
            let m = layout.members[idx]
            if m.keyHasEscapes {
                var decoded = JSONStrings.decode(buf, m.key, hasEscapes: true)
                decoded.withUTF8 { record(idx, $0, 0..<$0.count) }
            } else {
                record(idx, buf, m.key)
            }
        }
    }

    @inline(__always)
    private mutating func record(_ idx: Int, _ bytes: UnsafeBufferPointer<UInt8>, _ key: Range<Int>) {
        @inline(__always) func eq(_ word: StaticString) -> Bool { ByteWords.equal(UnsafeBufferPointer(rebasing: bytes[key]), word) }
        switch key.count {
        case 4: if eq("type") { type = idx }
        case 5: if eq("event") { event = idx }
        case 6: if eq("userId") { userId = idx }
        case 11: if eq("anonymousId") { anonymousId = idx }
        default: break
        }
    }
}
