import Foundation
import JSONCore

/// The SDK's persisted identity (anonymousId, userId, groupId, advertisingId) and the current
/// user's traits, kept as one ``IdentityRecord`` under `metarouter:identity`.
///
/// Every change is one `set` of the whole record, and the identity in memory changes only after
/// that write succeeded: a failed or interrupted write leaves the previous record, in storage
/// and in memory. A store written under the SDK's separate keys (`metarouter:anonymous_id`,
/// `metarouter:user_id`, `metarouter:group_id`, `metarouter:advertising_id`) is read once and
/// then kept as a record.
package actor PersistedIdentity {
    /// The SDK's key names, also the member names inside the record.
    package enum Key {
        package static let anonymousId = "metarouter:anonymous_id"
        package static let userId = "metarouter:user_id"
        package static let groupId = "metarouter:group_id"
        package static let advertisingId = "metarouter:advertising_id"
    }

    private let storage: any KeyValueStorage
    private let makeUUID: @Sendable () -> UUID
    private var current: IdentityRecord

    /// Loads the record from `storage`, creating and persisting an anonymousId on first use.
    package init(storage: any KeyValueStorage, makeUUID: @escaping @Sendable () -> UUID = { UUID() }) throws {
        self.storage = storage
        self.makeUUID = makeUUID
        if let text = storage.string(forKey: IdentityRecord.key), let record = IdentityRecord(decoding: text) {
            current = record
            return
        }
        let legacy = storage.string(forKey: Key.anonymousId)
        let record = IdentityRecord(
            identity: Identity(
                anonymousId: legacy.flatMap { $0.isEmpty ? nil : $0 } ?? makeUUID().uuidString.lowercased(),
                userId: storage.string(forKey: Key.userId),
                groupId: storage.string(forKey: Key.groupId),
                advertisingId: AdvertisingID.validated(storage.string(forKey: Key.advertisingId))))
        try storage.set(record.encoded, forKey: IdentityRecord.key)
        current = record
    }

    /// The current identity.
    package var identity: Identity { current.identity }

    /// The whole current record (identity and user traits).
    package var record: IdentityRecord { current }

    /// Persists `record` in one write, then makes it current.
    package func save(_ record: IdentityRecord) throws {
        try storage.set(record.encoded, forKey: IdentityRecord.key)
        current = record
    }

    /// Applies an IDSync transition in one write and returns the events that announce it.
    package func apply(_ transition: IdentityTransition) throws -> [Event] {
        let makeUUID = self.makeUUID
        let outcome = try transition.apply(to: current) { makeUUID().uuidString.lowercased() }
        try save(outcome.record)
        return outcome.events
    }

    /// Sets the user, as `identify` and `alias` do. Unless `sameUser` (an alias renames the same
    /// person), a different user's traits are not kept.
    package func identify(userId: String, sameUser: Bool = false) throws {
        var next = current
        if !sameUser, next.identity.userId != nil, next.identity.userId != userId { next.traits = nil }
        next.identity.userId = userId
        try save(next)
    }

    /// Sets the group, as `group` does.
    package func group(groupId: String) throws {
        var next = current
        next.identity.groupId = groupId
        try save(next)
    }

    /// Sets the advertising id. Invalid or all-zero values are refused (the id is cleared) and
    /// `false` is returned.
    @discardableResult
    package func setAdvertisingId(_ value: String?) throws -> Bool {
        let valid = AdvertisingID.validated(value)
        var next = current
        next.identity.advertisingId = valid
        try save(next)
        return valid != nil || value == nil
    }

    /// Clears every field and makes a new anonymousId, as the SDK's `reset()` does.
    package func reset() throws {
        try save(IdentityRecord(identity: Identity(anonymousId: makeUUID().uuidString.lowercased())))
    }
}
