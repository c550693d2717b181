import JSONCore

/// What an `alias` line changes, one of the identity transitions mr-replay reads from logs, with mParticle IDSync's meaning (see
/// `docs/enrichment.md`, "Identity transitions"):
///
/// * **login**: an `identify` whose `userId` differs from the one its anonymousId carries; the
///   anonymousId carries the new userId from then on (the store simply learns the new mapping).
/// * **modify**: an `identify` with the same `userId` (changed traits): nothing changes.
/// * **logout**: a `track` event named in `enrichment.identity.logout_events`: its anonymousId
///   carries no userId after it (``IdentityStore/forgetUser(anonymousId:sequence:)``).
/// * **alias**: previous id → `userId`: the previous id, as an anonymousId, carries the userId,
///   and the previous identity's group moves to the userId when it has none (this type).
///
/// An alias comes in two forms, and both are valid as written:
/// * the Segment form, with a top-level `previousId`;
/// * the MetaRouter SDKs' form (iOS, Android, React Native), with no `previousId`: the event's
///   own `anonymousId` is linked to the new `userId` (iOS puts a previous user id the app
///   passed in `properties.previousId`).
///
/// Only a userId (per anonymousId) and a groupId (per userId) are ever carried: traits never
/// are, so nothing of one user's traits reaches another user's events.
struct AliasTransition {
    /// The alias's previous id: from now on, as an anonymousId, it carries the alias's userId.
    var previousId: IdRef
    /// The previous identity's group, which the alias's userId takes over because it has no
    /// group of its own; nil when there is nothing to move.
    var movedGroup: IdentityValue?

    /// Why an alias event, judged as written, is not valid (nil when it is): it needs a
    /// non-empty `userId`, and a non-empty `previousId` or, failing that, `anonymousId`.
    static func invalidity(hasUserId: Bool, hasPreviousOrAnonymousId: Bool) -> String? {
        switch (hasUserId, hasPreviousOrAnonymousId) {
        case (true, true): nil
        case (false, true): "an alias event needs a non-empty \"userId\" (the user it links to)"
        case (true, false): "an alias event needs a non-empty \"previousId\" or \"anonymousId\" (the id it links to its \"userId\")"
        case (false, false): "an alias event needs a non-empty \"userId\", and a non-empty \"previousId\" or \"anonymousId\""
        }
    }

    /// The previous id of an alias event, the first of: its top-level `previousId`; its
    /// `properties.previousId` (where the iOS SDK puts a previous user id the app passed); its
    /// own anonymousId as written (`ownAnonymousId`: nil when the line has none, or only a
    /// placeholder). Placeholders (``PlaceholderIds``) are never a previous id.
    static func previousId(
        _ top: TopLevelMembers, _ layout: ObjectLayout, _ buf: UnsafeBufferPointer<UInt8>, ownAnonymousId: IdRef?
    ) -> IdRef? {
        func real(_ m: JSONMember?) -> IdRef? {
            guard let id = IdRef(m, buf), !id.withBytes(buf, PlaceholderIds.contains) else { return nil }
            return id
        }
        if let id = real(top.previousId.map { layout.members[$0] }) { return id }
        if let p = top.properties.map({ layout.members[$0] }), p.kind == .object, let props = ObjectLayout.scanNested(buf, p.value),
            let id = real(props.member("previousId", in: buf))
        {
            return id
        }
        return ownAnonymousId
    }

    /// The transition of an alias event from `previousId` to `userId` (read from `buf`), found
    /// while its line is prepared (the lookups may fail, which dead-letters the line) and learned
    /// when it is finished. The group that moves is the previous id's own (read as a userId),
    /// else that of the user the previous id carries (read as an anonymousId): after an SDK's
    /// `alias(newUserId)` the device keeps its group.
    static func make(previousId: IdRef, userId: IdRef, _ buf: UnsafeBufferPointer<UInt8>, _ identity: IdentityStore) throws -> AliasTransition {
        let own = try userId.withBytes(buf) { try identity.groupIdValue(forUserId: $0) }
        guard own == nil else { return AliasTransition(previousId: previousId, movedGroup: nil) }
        let moved = try previousId.withBytes(buf) { previous -> IdentityValue? in
            if let group = try identity.groupIdValue(forUserId: previous) { return group }
            guard let carried = try identity.userIdValue(forAnonymousId: previous) else { return nil }
            return try carried.withRaw { try identity.groupIdValue(forUserId: $0) }
        }
        return AliasTransition(previousId: previousId, movedGroup: moved)
    }
}
