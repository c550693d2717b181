import JSONCore

/// Everything the client persists about who sends events: the ``Identity`` and the current
/// user's traits. It is stored whole, as one JSON string under ``key``, so that every change
/// (one identify, or a whole login/logout) is one write: a crash leaves the old record or the new
/// one, never half of a transition.
package struct IdentityRecord: Sendable, Equatable {
    /// The storage key of the record.
    package static let key = "metarouter:identity"
    /// The record's member for the user's traits (the ids use the SDK's key names).
    package static let traitsKey = "metarouter:user_traits"

    package var identity: Identity
    /// The current user's traits (typed identities and others), carried as `context.traits`.
    package var traits: JSONObject?

    package init(identity: Identity, traits: JSONObject? = nil) {
        self.identity = identity
        self.traits = traits.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The stored form: `{"metarouter:anonymous_id": ..., "metarouter:user_id": ...,
    /// "metarouter:group_id": ..., "metarouter:advertising_id": ..., "metarouter:user_traits": {...}}`
    /// (absent members are left out).
    package var encoded: String {
        var o = JSONObject()
        o[PersistedIdentity.Key.anonymousId] = .string(identity.anonymousId)
        o[PersistedIdentity.Key.userId] = identity.userId.map { .string($0) }
        o[PersistedIdentity.Key.groupId] = identity.groupId.map { .string($0) }
        o[PersistedIdentity.Key.advertisingId] = identity.advertisingId.map { .string($0) }
        o[Self.traitsKey] = traits.map { .object($0) }
        return JSONValue.object(o).encodedString
    }

    /// Reads a stored record; nil when it is not one (no anonymousId, or not JSON).
    package init?(decoding text: String) {
        guard let o = (try? JSONValue(parsing: text))?.objectValue,
            let anonymousId = o[PersistedIdentity.Key.anonymousId]?.stringValue, !anonymousId.isEmpty
        else { return nil }
        self.init(
            identity: Identity(
                anonymousId: anonymousId,
                userId: o[PersistedIdentity.Key.userId]?.stringValue,
                groupId: o[PersistedIdentity.Key.groupId]?.stringValue,
                advertisingId: AdvertisingID.validated(o[PersistedIdentity.Key.advertisingId]?.stringValue)),
            traits: o[Self.traitsKey]?.objectValue)
    }
}
