import Foundation

/// The SDK's persisted identity: anonymousId, userId, groupId and advertisingId, stored under
/// the SDK's keys (`metarouter:anonymous_id`, `metarouter:user_id`, `metarouter:group_id`,
/// `metarouter:advertising_id`).
package actor PersistedIdentity {
    /// The storage keys, as the SDK names them.
    package enum Key {
        package static let anonymousId = "metarouter:anonymous_id"
        package static let userId = "metarouter:user_id"
        package static let groupId = "metarouter:group_id"
        package static let advertisingId = "metarouter:advertising_id"
    }

    private let storage: any KeyValueStorage
    private let makeUUID: @Sendable () -> UUID
    private var current: Identity

    /// Loads the identity from `storage`, creating and persisting an anonymousId on first use.
    package init(storage: any KeyValueStorage, makeUUID: @escaping @Sendable () -> UUID = { UUID() }) throws {
        self.storage = storage
        self.makeUUID = makeUUID
        let anonymousId: String
        if let stored = storage.string(forKey: Key.anonymousId), !stored.isEmpty {
            anonymousId = stored
        } else {
            anonymousId = makeUUID().uuidString.lowercased()
            try storage.set(anonymousId, forKey: Key.anonymousId)
        }
        current = Identity(
            anonymousId: anonymousId,
            userId: storage.string(forKey: Key.userId),
            groupId: storage.string(forKey: Key.groupId),
            advertisingId: AdvertisingID.validated(storage.string(forKey: Key.advertisingId)))
    }

    /// The current identity.
    package var identity: Identity { current }

    /// Sets the user, as `identify` and `alias` do.
    package func identify(userId: String) throws {
        try storage.set(userId, forKey: Key.userId)
        current.userId = userId
    }

    /// Sets the group, as `group` does.
    package func group(groupId: String) throws {
        try storage.set(groupId, forKey: Key.groupId)
        current.groupId = groupId
    }

    /// Sets the advertising id. Invalid or all-zero values are refused (the id is cleared) and
    /// `false` is returned.
    @discardableResult
    package func setAdvertisingId(_ value: String?) throws -> Bool {
        let valid = AdvertisingID.validated(value)
        try storage.set(valid, forKey: Key.advertisingId)
        current.advertisingId = valid
        return valid != nil || value == nil
    }

    /// Clears every field and makes a new anonymousId, as the SDK's `reset()` does.
    package func reset() throws {
        for key in [Key.userId, Key.groupId, Key.advertisingId] { try storage.set(nil, forKey: key) }
        let fresh = makeUUID().uuidString.lowercased()
        try storage.set(fresh, forKey: Key.anonymousId)
        current = Identity(anonymousId: fresh)
    }
}
