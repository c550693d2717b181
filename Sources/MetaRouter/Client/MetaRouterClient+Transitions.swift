/// mParticle IDSync's user transitions next to ``MetaRouterClient/identify(_:traits:)``.
///
/// Each transition is persisted as one write of the whole identity record before its events are
/// queued: if the write fails, it throws, and neither the identity nor the events change.
/// The identity changes even when the calls' events are dropped (consent revoked, client shut
/// down or disabled), so that it matches the app's login state.
extension MetaRouterClient {
    /// Logs `identities.customerId` in (IDSync `login`).
    /// - From anonymous: `userId` becomes the customer id, an `alias` event links the anonymousId
    ///   to it, then an `identify` event carries the user's traits. The anonymous session's
    ///   groupId and traits stay with the user.
    /// - From another user: a new anonymousId, no groupId, only the given traits (nothing of the
    ///   previous user), and an `identify` event. No alias: they are different people.
    /// - As the current user: the traits are updated and an `identify` event is sent.
    /// - Throws: ``IdentityTransitionError/missingCustomerId`` without a customer id, or the
    ///   storage's error when the identity cannot be written.
    public func login(_ identities: UserIdentities) async throws {
        try await transition(.login(identities))
    }

    /// Logs the user out (IDSync `logout`): a new anonymousId, and no userId, groupId nor traits.
    /// No event is sent; later events carry nothing of the previous user. The advertising id is a
    /// device id and is kept (ATT governs it). Events queued before keep their identity.
    /// - Throws: the storage's error when the identity cannot be written.
    public func logout() async throws {
        try await transition(.logout)
    }

    /// Changes the current user's identities and traits (IDSync `modify`) and sends an
    /// `identify` event with the user's traits. `removing` names traits to remove (`email`,
    /// `phone`, ...). It never changes who the user is: it works on the anonymous user too.
    /// - Throws: ``IdentityTransitionError/customerIdChange(current:requested:)`` when
    ///   `identities.customerId` is not the current userId (use ``login(_:)``), or the storage's error.
    public func modify(_ identities: UserIdentities, removing: [String] = []) async throws {
        try await transition(.modify(identities, removing: removing))
    }

    private func transition(_ t: IdentityTransition) async throws {
        let events = try await identity.apply(t)
        for event in events { await enqueue(event) }
    }
}
