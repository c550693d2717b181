import JSONCore

import ReplayConfiguration
@testable import ReplayKit

/// The configurations and the identity store every input is enriched with.
enum FuzzSetup {
    /// The replay clock (for `default_timestamp: now`), fixed so that a failure replays exactly.
    static let now: Int64 = 1_732_000_000_123

    /// The shipped defaults (with `Config/replay.yaml`'s context default), and one with every
    /// rule that edits a line switched on.
    static let configs: [ReplayConfig] = {
        var shipped = ReplayConfig.defaults
        shipped.enrichment.context.app = ["name": "mr-replay-sample", "version": "1.0.0"]
        var busy = ReplayConfig.defaults
        busy.enrichment.defaultTimestamp = .now
        busy.delivery.maxEventBytes = 2_048  // longer lines are dead-lettered `too_large`
        busy.enrichment.context.app = ["name": "fuzz", "build": 7, "e\u{301}": "equivalent", "\u{E9}": "keys"]
        busy.enrichment.context.device = ["manufacturer": "Apple", "model": "iPhone15,2"]
        busy.enrichment.context.os = ["name": "iOS", "version": "17.4"]
        busy.enrichment.context.locale = "en-US"
        busy.enrichment.context.timezone = "Europe/Berlin"
        busy.privacy.dropProperties = ["email", "phone", "properties.user.email", "context.traits.phone", "\u{E9}"]
        return [shipped, busy]
    }()

    /// Ids the store knows before the input's lines: short and long ones, and UUIDs in either
    /// case (the identity map keeps short ids and UUIDs inline), some committed to SQLite and
    /// some only in memory.
    static let knownUsers: [(anonymousId: String, userId: String, committed: Bool)] = [
        ("anon-1", "user-1", true),
        ("anon-long-0123456789abcdefghijklmnopqrstuvwxyz", "üser-✓-0123456789abcdefghijklmnop", true),
        ("anon-2", "user-2", false),
        ("e\u{301}", "user-\u{E9}", false),
        ("F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6", "f81d4fae-7dec-11d0-a765-00a0c91e6bf6", true),
        ("f81d4fae-7dec-11d0-a765-00a0c91e6bf6", "12345678-9012-3456-7890-123456789012", false),
    ]
    static let knownGroups: [(userId: String, groupId: String, committed: Bool)] = [
        ("user-1", "acme", true),
        ("üser-✓-0123456789abcdefghijklmnop", "group-0123456789abcdefghijklmnopqrstuvwxyz", false),
        ("user-2", "g\"2", false),
        ("f81d4fae-7dec-11d0-a765-00a0c91e6bf6", "0A0B0C0D-0E0F-1011-1213-141516171819", true),
    ]

    /// One in-memory store (nothing on disk) per configuration, reset for every input: opening a
    /// store (SQLite, its tables and statements) for every input would make the target five
    /// times slower. The fuzzer calls its entry point from one thread only, so no two calls use
    /// them at once.
    nonisolated(unsafe) static let stores: [IdentityStore] = configs.map { _ in
        guard let store = try? IdentityStore(stateDirectory: nil, makeUUID: { "6f1c2d3e-4b5a-4c6d-8e7f-0123456789ab" }) else {
            fatalError("the in-memory identity store cannot be opened")
        }
        return store
    }

    /// Makes `store` know ``knownUsers`` and ``knownGroups`` and nothing else, as a new store
    /// would (`forgetLearnedIdentities` is what `run --fresh` uses to enrich like a first run).
    static func reset(_ store: IdentityStore, input: [UInt8]) {
        fuzzCheck((try? store.forgetLearnedIdentities()) != nil, "forgetting the learned identities failed", input: input)
        for u in knownUsers where u.committed { learnUser(store, u.anonymousId, u.userId) }
        for g in knownGroups where g.committed { learnGroup(store, g.userId, g.groupId) }
        fuzzCheck((try? store.commit(throughSequence: 0)) != nil, "the first commit failed", input: input)
        for u in knownUsers where !u.committed { learnUser(store, u.anonymousId, u.userId) }
        for g in knownGroups where !g.committed { learnGroup(store, g.userId, g.groupId) }
    }

    /// Teaches `store` that `anonymousId` is `userId`, as an identify line would.
    static func learnUser(_ store: IdentityStore, _ anonymousId: String, _ userId: String) {
        var a = anonymousId, u = userId
        a.withUTF8 { k in u.withUTF8 { v in store.learnUser(anonymousId: k, userId: v, sequence: 0) } }
    }

    /// Teaches `store` that `userId` belongs to `groupId`, as a group line would.
    static func learnGroup(_ store: IdentityStore, _ userId: String, _ groupId: String) {
        var u = userId, g = groupId
        u.withUTF8 { k in g.withUTF8 { v in store.learnGroup(userId: k, groupId: v, sequence: 0) } }
    }
}
