import JSONCore

/// What an `alias` line changes, one of the identity transitions mr-replay reads from logs, with mParticle IDSync's meaning (see
/// `docs/enrichment.md`, "Identity transitions"):
///
/// * **login**: an `identify` whose `userId` differs from the one its anonymousId carries; the
///   anonymousId carries the new userId from then on (the store simply learns the new mapping).
/// * **modify**: an `identify` with the same `userId` (changed traits): nothing changes.
/// * **logout**: a `track` event named in `enrichment.identity.logout_events`: its anonymousId
///   carries no userId after it (``IdentityStore/forgetUser(anonymousId:sequence:)``).
/// * **alias**: `previousId` → `userId`: the previousId, as an anonymousId, carries the userId,
///   and the previousId's group (as a userId) moves to the userId when it has none (this type).
///
/// Only a userId (per anonymousId) and a groupId (per userId) are ever carried: traits never
/// are, so nothing of one user's traits reaches another user's events.
struct AliasTransition {
    /// The alias's `previousId`: from now on, as an anonymousId, it carries the alias's userId.
    var previousId: IdRef
    /// The previousId's group (the previousId read as a userId), which the alias's userId takes
    /// over because it has no group of its own; nil when there is nothing to move.
    var movedGroup: IdentityValue?

    /// The transition of an alias event with `previousId` and `userId` (read from `buf`), found
    /// while its line is prepared (the lookups may fail, which dead-letters the line) and learned
    /// when it is finished.
    static func make(previousId: IdRef, userId: IdRef, _ buf: UnsafeBufferPointer<UInt8>, _ identity: IdentityStore) throws -> AliasTransition {
        let own = try userId.withBytes(buf) { try identity.groupIdValue(forUserId: $0) }
        guard own == nil else { return AliasTransition(previousId: previousId, movedGroup: nil) }
        let moved = try previousId.withBytes(buf) { try identity.groupIdValue(forUserId: $0) }
        return AliasTransition(previousId: previousId, movedGroup: moved)
    }
}
