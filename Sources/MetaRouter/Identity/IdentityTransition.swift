import JSONCore

/// Why an identity transition was refused (nothing was changed nor sent).
public enum IdentityTransitionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `login` needs `customerId`: it names the known user to move to.
    case missingCustomerId
    /// `modify` never changes who the user is: a different `customerId` needs `login`.
    case customerIdChange(current: String?, requested: String)

    public var description: String {
        switch self {
        case .missingCustomerId:
            "login needs UserIdentities.customerId (the user to log in)"
        case .customerIdChange(let current, let requested):
            "modify cannot change the user from \(current.map { "\"\($0)\"" } ?? "anonymous") to \"\(requested)\"; use login"
        }
    }
}

/// mParticle IDSync's user transitions as a pure function from the current ``IdentityRecord``
/// to the next one and the events that announce it.
package enum IdentityTransition: Sendable, Equatable {
    /// Moves to the known user `customerId`: from anonymous, the anonymous id is aliased to it
    /// (the anonymous session's group and traits stay with the user); from another user,
    /// nothing of that user is kept (new anonymousId, no group, only the given traits).
    case login(UserIdentities)
    /// Back to a new anonymous identity: new anonymousId, no userId, group nor traits. The
    /// advertising id (a device id, governed by ATT) is kept.
    case logout
    /// Changes the current user's identities and traits (`removing` names traits to drop);
    /// never changes the userId.
    case modify(UserIdentities, removing: [String])

    /// The result of a transition.
    package struct Outcome: Sendable, Equatable {
        package var record: IdentityRecord
        /// The events to send after the record is persisted, in order.
        package var events: [Event]
    }

    /// Applies the transition to `current`; `newAnonymousId` makes the id of a new anonymous identity.
    package func apply(to current: IdentityRecord, newAnonymousId: () -> String)
        throws(IdentityTransitionError) -> Outcome
    {
        switch self {
        case .login(let ids):
            guard let userId = ids.customerId, !userId.isEmpty else { throw .missingCustomerId }
            return Self.login(userId, ids, from: current, newAnonymousId: newAnonymousId)
        case .logout:
            let fresh = Identity(anonymousId: newAnonymousId(), advertisingId: current.identity.advertisingId)
            return Outcome(record: IdentityRecord(identity: fresh), events: [])
        case .modify(let ids, let removing):
            if let requested = ids.customerId, requested != current.identity.userId {
                throw .customerIdChange(current: current.identity.userId, requested: requested)
            }
            var traits = Self.merge(current.traits, ids.traitValues)
            for name in removing { traits[name] = nil }
            let record = IdentityRecord(identity: current.identity, traits: traits)
            return Outcome(record: record, events: [Self.identifyEvent(record)])
        }
    }

    private static func login(
        _ userId: String, _ ids: UserIdentities, from current: IdentityRecord,
        newAnonymousId: () -> String
    ) -> Outcome {
        let previous = current.identity
        if previous.userId == userId {
            let record = IdentityRecord(identity: previous, traits: merge(current.traits, ids.traitValues))
            return Outcome(record: record, events: [identifyEvent(record)])
        }
        if previous.userId == nil {
            var identity = previous
            identity.userId = userId
            let record = IdentityRecord(identity: identity, traits: merge(current.traits, ids.traitValues))
            return Outcome(record: record, events: [.alias(userId), identifyEvent(record)])
        }
        let identity = Identity(anonymousId: newAnonymousId(), userId: userId, advertisingId: previous.advertisingId)
        let record = IdentityRecord(identity: identity, traits: ids.traitValues)
        return Outcome(record: record, events: [identifyEvent(record)])
    }

    /// An identify event for the record's user (or its anonymous id) with its traits.
    private static func identifyEvent(_ record: IdentityRecord) -> Event {
        var e = Event(type: .identify)
        e.userId = record.identity.userId
        e.traits = record.traits ?? JSONObject()
        return e
    }

    private static func merge(_ base: JSONObject?, _ changes: JSONObject) -> JSONObject {
        var out = base ?? JSONObject()
        for (k, v) in changes { out[k] = v }
        return out
    }
}
