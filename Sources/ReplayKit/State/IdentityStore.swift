import Foundation
@_spi(PerLine) import MetaRouterDelivery
import SQLiteSupport

/// Remembered identities for carry-forward, kept in SQLite (`<state_dir>/identity.sqlite`).
///
/// Mappings: anonymousId → userId (from identify and alias events, ended by logout events) and
/// userId → groupId (from group events, and moved by alias events), plus the persisted device
/// anonymousId.
///
/// Crash safety: a mapping learned from a line lives in an in-memory overlay tagged with that
/// line's `sequence` and reaches SQLite only through ``commit(throughSequence:)``, which the run
/// pipeline calls when its checkpoint passes that sequence. After a crash, lines after the
/// checkpoint are re-read and re-learned, so re-enrichment gives identical output. Every row a
/// line changes (a login's userId, an alias's userId and moved group, a logout's deletion) has
/// that line's sequence, so one transaction writes all of them or none: a transition is never
/// half stored.
/// Lookups see committed rows plus the overlay. Not thread-safe: owned by one pipeline stage.
package final class IdentityStore {
    private let db: SQLiteDatabase
    /// A dry run's throwaway copy, kept without a journal (see `init`'s `scratch`).
    private let isScratch: Bool
    /// The device anonymousId (lowercase UUID) given to events without one.
    package let deviceAnonymousId: String

    /// A mapping learned and not yet committed (kept until a checkpoint passes its line: a run
    /// checkpoints every second and every 65,536 mappings, so those in flight and at most that
    /// many more; it is kept small all the same: 64 bytes, ids inline when short).
    package struct Pending {
        let sequence: UInt64
        let row: LearnedRow
        /// Where the mapping's entry was in its ``IdentityMap`` when it was learned (see
        /// ``IdentityMap/markCommitted(_:sequence:entryHint:)``).
        let entryHint: UInt32
        var isGroup: Bool { row.kind == .group }
    }
    /// Learned mappings from `pendingStart` on are not committed yet. Kept in blocks: it holds
    /// the mappings since the last checkpoint, and committed blocks are dropped from the front.
    // Unchecked (these four): the store is used by one thread at a time (not Sendable), and its
    // methods never hold an access to one of them across a call that reaches it again.
    @exclusivity(unchecked) private var pending = BlockArray<Pending>()
    @exclusivity(unchecked) private var pendingStart = 0
    /// anonymousId → userId and userId → groupId in memory, keyed by bytes: the overlay of
    /// uncommitted mappings and a bounded cache of committed rows.
    @exclusivity(unchecked) private var users = IdentityMap()
    @exclusivity(unchecked) private var groups = IdentityMap()
    private let selectUser: SQLiteDatabase.Statement
    private let selectGroup: SQLiteDatabase.Statement
    /// Each table's multi-row upserts (see ``IdentityRowWriter``).
    private let userUpserts: IdentityUpserts
    private let groupUpserts: IdentityUpserts
    private let deleteUser: SQLiteDatabase.Statement
    /// messageIds of snapshot events, waiting for the checkpoint that passes their line.
    private var pendingMessageIds: [(sequence: UInt64, input: String, messageId: String)] = []
    /// The newest line a scratch store learned a mapping from (see ``keepsLog(_:)``).
    private var newestScratchSequence: UInt64 = 0

    /// Opens (creating) the store in `stateDirectory`, or a private in-memory store when nil
    /// (nothing is persisted: used by `validate`). The device anonymousId is `deviceAnonymousId`
    /// when given (the state directory's shared one, see ``DeviceIdentity``; it is stored), else
    /// the stored one, else one is created and persisted at once.
    ///
    /// A `scratch` store is a throwaway copy (a dry run's, see ``copy(toDirectory:)``) that no
    /// later run reads: it keeps no journal and never waits for a disk sync, so a commit writes
    /// only the pages it changes. A journal in memory instead would hold a copy of every page a
    /// commit touches, up to the whole table on a large backfill. Without one a failed commit
    /// cannot be rolled back: it throws and leaves the store unusable, and the dry run ends.
    /// A scratch store keeps no log of the mappings it learns either: a commit writes its
    /// maps' uncommitted entries, the newest value of each key, so it must pass every line
    /// learned from (a dry run has nothing in flight), and a key learned many times between two
    /// commits is written once.
    package init(
        stateDirectory: String?, deviceAnonymousId shared: String? = nil, scratch: Bool = false,
        makeUUID: () -> String = { UUID().uuidString.lowercased() }
    ) throws {
        isScratch = scratch && stateDirectory != nil
        if let dir = stateDirectory {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            db = try SQLiteDatabase(path: dir + "/identity.sqlite")
            // FULL: a checkpoint is on disk once committed (one sync of the write-ahead log per
            // checkpoint, about one a second), so after a power loss a run resumes from the last
            // checkpoint it reported, and the acknowledgment log's removed generations were covered.
            let journal = scratch ? "journal_mode=OFF; PRAGMA synchronous=OFF" : "journal_mode=WAL; PRAGMA synchronous=FULL"
            try db.execute("PRAGMA locking_mode=EXCLUSIVE; PRAGMA \(journal);")
        } else {
            db = try SQLiteDatabase(path: ":memory:")
        }
        try db.execute(
            """
            CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS anon_user (anonymous_id TEXT PRIMARY KEY, user_id TEXT NOT NULL) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS user_group (user_id TEXT PRIMARY KEY, group_id TEXT NOT NULL) WITHOUT ROWID;
            CREATE TABLE IF NOT EXISTS settled_message_id (input TEXT NOT NULL, message_id TEXT NOT NULL,
                PRIMARY KEY (input, message_id)) WITHOUT ROWID;
            """)
        if let shared {
            try db.run("INSERT OR REPLACE INTO meta (key, value) VALUES ('device_anonymous_id', ?)", [shared])
            deviceAnonymousId = shared
        } else if let id = try db.queryText("SELECT value FROM meta WHERE key = 'device_anonymous_id'", []) {
            deviceAnonymousId = id
        } else {
            let id = makeUUID()
            try db.run("INSERT INTO meta (key, value) VALUES ('device_anonymous_id', ?)", [id])
            deviceAnonymousId = id
        }
        selectUser = try db.prepare("SELECT user_id FROM anon_user WHERE anonymous_id = ?")
        selectGroup = try db.prepare("SELECT group_id FROM user_group WHERE user_id = ?")
        deleteUser = try db.prepare("DELETE FROM anon_user WHERE anonymous_id = ?")
        userUpserts = IdentityUpserts(db, table: "anon_user", key: "anonymous_id", value: "user_id")
        groupUpserts = IdentityUpserts(db, table: "user_group", key: "user_id", value: "group_id")
        users.isComplete = try db.queryText("SELECT EXISTS (SELECT 1 FROM anon_user)", []) == "0"
        groups.isComplete = try db.queryText("SELECT EXISTS (SELECT 1 FROM user_group)", []) == "0"
    }

    // MARK: - The hot path: ids as bytes

    /// Remembers that the anonymousId `key` is the userId `value` (identify / alias), effective
    /// for lookups at once. A mapping the store already holds is not written again.
    package func learnUser(anonymousId key: UnsafeBufferPointer<UInt8>, userId value: UnsafeBufferPointer<UInt8>, sequence: UInt64) {
        guard let entry = users.learn(key, IdentityValue(raw: value), sequence: sequence), keepsLog(sequence) else { return }
        pending.append(Pending(sequence: sequence, row: LearnedRow(key: key, value: value, kind: .user), entryHint: entry))
    }

    /// Ends carry-forward for the anonymousId `key` (a logout event): from now on it has no
    /// userId, until an identify or alias teaches one again. Effective for lookups at once;
    /// committed like a learned mapping (the row is deleted in the same transaction as the
    /// rest of its line's mappings).
    package func forgetUser(anonymousId key: UnsafeBufferPointer<UInt8>, sequence: UInt64) {
        let entry = users.forget(key, sequence: sequence)
        guard keepsLog(sequence) else { return }
        let row = LearnedRow(key: key, value: UnsafeBufferPointer(start: nil, count: 0), kind: .forgetUser)
        pending.append(Pending(sequence: sequence, row: row, entryHint: entry))
    }

    /// Remembers that the userId `key` belongs to the group `value` (group), effective for
    /// lookups at once. A mapping the store already holds is not written again.
    package func learnGroup(userId key: UnsafeBufferPointer<UInt8>, groupId value: UnsafeBufferPointer<UInt8>, sequence: UInt64) {
        guard let entry = groups.learn(key, IdentityValue(raw: value), sequence: sequence), keepsLog(sequence) else { return }
        pending.append(Pending(sequence: sequence, row: LearnedRow(key: key, value: value, kind: .group), entryHint: entry))
    }

    /// Whether a mapping learned from line `sequence` goes in the log of pending mappings: not in
    /// a scratch store's, which commits its maps' uncommitted entries instead (and notes the
    /// newest line learned from, which its commits must pass).
    @inline(__always)
    private func keepsLog(_ sequence: UInt64) -> Bool {
        guard isScratch else { return true }
        newestScratchSequence = max(newestScratchSequence, sequence)
        return false
    }

    /// The userId known for the anonymousId `key` (overlay first, then committed rows).
    package func userIdValue(forAnonymousId key: UnsafeBufferPointer<UInt8>) throws -> IdentityValue? {
        try lookup(key, in: &users, query: selectUser)
    }

    /// The groupId known for the userId `key` (overlay first, then committed rows).
    package func groupIdValue(forUserId key: UnsafeBufferPointer<UInt8>) throws -> IdentityValue? {
        try lookup(key, in: &groups, query: selectGroup)
    }

    /// `key`'s value in `map`, asking SQLite (and remembering its answer) when memory cannot tell.
    private func lookup(_ key: UnsafeBufferPointer<UInt8>, in map: inout IdentityMap, query: SQLiteDatabase.Statement) throws -> IdentityValue? {
        switch map.lookup(key) {
        case .value(let v): return v
        case .absent: return nil
        case .unknown:
            let v = try db.queryBytes(query, key).map { IdentityValue(raw: $0) }
            map.remember(key, committedValue: v)
            return v
        }
    }

    /// The hashes of a line's ids, from ``prefetch(anonymousId:userId:)``.
    struct LookupHints {
        var anonymousId: UInt64?
        var userId: UInt64?
    }

    /// Starts the memory reads of the lookups a line is about to make, by its anonymousId (in the
    /// userId table) and its userId (in the groupId table), so their cache misses overlap the
    /// line's other rules. Hints only: nothing is looked up or changed. Finish with
    /// ``prefetchEntries(_:)`` a little later.
    func prefetch(anonymousId: UnsafeBufferPointer<UInt8>?, userId: UnsafeBufferPointer<UInt8>?) -> LookupHints {
        LookupHints(anonymousId: anonymousId.map { users.prefetchSlot($0) }, userId: userId.map { groups.prefetchSlot($0) })
    }

    /// The second step of ``prefetch(anonymousId:userId:)``: prefetches the entries the slots
    /// point to.
    func prefetchEntries(_ hints: LookupHints) {
        if let h = hints.anonymousId { users.prefetchEntry(hash: h) }
        if let h = hints.userId { groups.prefetchEntry(hash: h) }
    }

    /// Writes every overlay mapping learned from lines with sequence ≤ `sequence` to SQLite,
    /// in one transaction, in learning order.
    package func commit(throughSequence sequence: UInt64) throws {
        try commit(throughSequence: sequence, metadata: [:])
    }

    /// Writes the overlay mappings learned from lines with sequence ≤ `sequence` (none when
    /// `nil`) and the `metadata` values (`nil` deletes a key) in ONE transaction. The run pipeline
    /// stores its checkpoint this way, so the checkpoint and the identities learned before it
    /// always move together, even after `kill -9`.
    package func commit(throughSequence sequence: UInt64?, metadata: [String: String?]) throws {
        var end = pendingStart
        var idsEnd = 0
        if let sequence {
            while end < pending.count, pending[end].sequence <= sequence { end += 1 }
            while idsEnd < pendingMessageIds.count, pendingMessageIds[idsEnd].sequence <= sequence { idsEnd += 1 }
        }
        // A scratch store has no log: its maps' uncommitted entries are what it commits.
        let scratchUsers = isScratch && sequence != nil ? users.uncommittedIndices() : []
        let scratchGroups = isScratch && sequence != nil ? groups.uncommittedIndices() : []
        let hasScratchEntries = !scratchUsers.isEmpty || !scratchGroups.isEmpty
        precondition(!hasScratchEntries || sequence! >= newestScratchSequence, "a scratch store's commit must pass every line it learned from")
        guard end > pendingStart || hasScratchEntries || idsEnd > 0 || !metadata.isEmpty else { return }
        try db.execute("BEGIN")
        do {
            try writeRows(pendingStart..<end)
            try writeEntries(users, scratchUsers, isGroup: false)
            try writeEntries(groups, scratchGroups, isGroup: true)
            for p in pendingMessageIds[..<idsEnd] {
                try db.run("INSERT OR IGNORE INTO settled_message_id (input, message_id) VALUES (?, ?)", [p.input, p.messageId])
            }
            for (key, value) in metadata {
                if let value {
                    try db.run("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", [key, value])
                } else {
                    try db.run("DELETE FROM meta WHERE key = ?", [key])
                }
            }
            try db.execute("COMMIT")
        } catch {
            // Without a journal (a scratch store) SQLite leaves a rollback undefined.
            if !isScratch { try? db.execute("ROLLBACK") }
            throw error
        }
        markCommitted(pendingStart..<end)
        users.markCommitted(indices: scratchUsers)
        groups.markCommitted(indices: scratchGroups)
        pendingStart = end
        pendingStart -= pending.removeFirstBlocks(upTo: pendingStart)
        pendingMessageIds.removeFirst(idsEnd)
    }

    /// Marks the entries of the pending mappings `range` committed, prefetching a few rows ahead:
    /// the entries were learned a second or two ago and are rarely still in the CPU's caches.
    private func markCommitted(_ range: Range<Int>) {
        let ahead = 8
        for i in range {
            if i + ahead < range.upperBound {
                let next = pending[i + ahead]
                if next.isGroup { groups.prefetchEntry(Int(next.entryHint)) } else { users.prefetchEntry(Int(next.entryHint)) }
            }
            let p = pending[i]
            p.row.withKey { key in
                if p.isGroup {
                    groups.markCommitted(key, sequence: p.sequence, entryHint: Int(p.entryHint))
                } else {
                    users.markCommitted(key, sequence: p.sequence, entryHint: Int(p.entryHint))
                }
            }
        }
    }

    /// Remembers that the snapshot event with `messageId`, read from `input` as line
    /// `sequence`, is settled once the checkpoint passes that line (committed with it).
    func noteSettledMessageId(_ messageId: String, input: String, sequence: UInt64) {
        pendingMessageIds.append((sequence, input, messageId))
    }

    /// The messageIds of the events of snapshot `input` that earlier runs settled.
    package func settledMessageIds(input: String) throws -> Set<String> {
        Set(try db.queryTexts("SELECT message_id FROM settled_message_id WHERE input = ?", [input]))
    }

    /// Upserts the logged mappings `range` inside the caller's transaction, in the order of
    /// ``IdentityRowOrder``. That order jumps around the log (it is by key, the log by line), so
    /// each row is prefetched a few rows ahead: the log outgrows the CPU's caches, and without
    /// it, reading a row there is nearly all of this loop's own time.
    private func writeRows(_ range: Range<Int>) throws {
        let rows = pending
        let ahead = 4
        for isGroup in [false, true] {
            var writer = IdentityRowWriter(isGroup ? groupUpserts : userUpserts, delete: deleteUser)
            let positions = range.lazy.filter { rows[$0].isGroup == isGroup }
            let order = IdentityRowOrder.lastOfEachKey(rows, positions)
            for k in order.indices {
                if k + ahead < order.count { rows.prefetch(order[k + ahead]) }
                try writer.add(rows[order[k]].row)
            }
            try writer.flush()
        }
    }

    /// Upserts (or, for a logout, deletes) the rows of `map`'s entries `indices` inside the
    /// caller's transaction, in the order of ``IdentityRowOrder`` (a scratch store's commit).
    private func writeEntries(_ map: IdentityMap, _ indices: [Int], isGroup: Bool) throws {
        guard !indices.isEmpty else { return }
        var writer = IdentityRowWriter(isGroup ? groupUpserts : userUpserts, delete: deleteUser)
        for i in IdentityRowOrder.lastOfEachKey(map, indices) {
            let value = map.value(at: i)
            precondition(value != nil || !isGroup, "a group mapping is never forgotten")
            try map.withKey(at: i) { key in
                guard let value else { return try writer.add(key: key, value: nil) }
                try value.withRaw { try writer.add(key: key, value: $0) }
            }
        }
        try writer.flush()
    }

    /// A value stored with ``commit(throughSequence:metadata:)``.
    package func metadata(_ key: String) throws -> String? {
        try db.queryText("SELECT value FROM meta WHERE key = ?", [key])
    }

    /// Forgets every learned identity (committed or not) and the settled snapshot messageIds; the
    /// device anonymousId stays. Used by
    /// `run --fresh`, so a fresh run enriches exactly like a first run.
    package func forgetLearnedIdentities() throws {
        try db.execute("BEGIN; DELETE FROM anon_user; DELETE FROM user_group; DELETE FROM settled_message_id; COMMIT;")
        pending.removeAll()
        pendingMessageIds.removeAll()
        pendingStart = 0
        users.reset()
        groups.reset()
    }

    /// Writes a consistent copy of the committed store (identities, device anonymousId and
    /// metadata) to `<directory>/identity.sqlite`, to be opened with `init(stateDirectory:)`.
    /// Dry runs work on such a copy, so what they learn never reaches the real state. Fails when
    /// that file exists already.
    package func copy(toDirectory directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try db.run("VACUUM INTO ?", [directory + "/identity.sqlite"])
    }

    /// Commits everything learned so far.
    package func commitAll() throws { try commit(throughSequence: .max) }

    /// Mappings learned but not yet committed (a scratch store counts keys: one learned again
    /// before it is committed counts once).
    package var uncommittedCount: Int {
        isScratch ? users.uncommittedCount + groups.uncommittedCount : pending.count - pendingStart
    }

    /// Whether a scratch store should commit now (a dry run asks after each line): once 65,536
    /// keys have uncommitted values and one of its maps holds as many entries as its cache of
    /// committed rows may keep. Before that, the uncommitted entries take no more memory than
    /// that cache could, and writing them would only cost time (a dry run of a million events
    /// with a hundred thousand ids writes nothing). After it, each map holds at most its cache
    /// and 65,536 uncommitted entries, what a durable store's checkpoint cycle allows.
    package var isScratchCommitDue: Bool {
        uncommittedCount >= 65_536 && (users.count >= users.limit || groups.count >= groups.limit)
    }

    /// Bounds both lookup caches (tests use tiny bounds to exercise eviction).
    package func setCacheLimit(_ limit: Int) {
        users.limit = limit
        groups.limit = limit
    }

    /// Closes the database (uncommitted mappings are dropped).
    package func close() { db.close() }
}

extension BlockArray: KeyedIdentityRows where Element == IdentityStore.Pending {
    /// Calls `body` with the key of the logged mapping at `position`.
    func withKey<R>(at position: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try self[position].row.withKey(body)
    }
}

/// A learned mapping's key and value bytes (each inline when short, see ``InlineBytes``) and
/// what it does. 49 bytes (56 with padding).
package struct LearnedRow {
    /// What a row does to its table.
    enum Kind: UInt8 {
        /// anonymousId → userId (identify, alias).
        case user
        /// userId → groupId (group, or a group moved by an alias).
        case group
        /// The anonymousId's userId ends (a logout event): its row is deleted. No value.
        case forgetUser
    }

    private let key: InlineBytes
    private let value: InlineBytes
    /// The table and the change.
    let kind: Kind

    init(key: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>, kind: Kind) {
        self.key = InlineBytes(key)
        self.value = InlineBytes(value)
        self.kind = kind
    }

    /// Calls `body` with the key's bytes.
    func withKey<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R { try key.withBytes(body) }

    /// Calls `body` with the value's bytes.
    func withValue<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R { try value.withBytes(body) }
}
