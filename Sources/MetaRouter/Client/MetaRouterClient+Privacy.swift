import Logging

/// Consent (FunnelMob / Google Consent Mode v2), App Tracking Transparency and `autoStart`.
extension MetaRouterClient {
    /// Records the user's consent decision; it may be called any time, before or after ``run()``.
    ///
    /// - Data usage revoked under GDPR (`isUserSubjectToGDPR` and not `hasConsentForDataUsage`):
    ///   every pending event is purged (the queue in memory, the hold overflow file, a snapshot
    ///   not yet sent, events waiting in the engine) and counted in ``ClientStats/purgedByConsent``;
    ///   later calls are dropped and counted in ``ClientStats/droppedByConsent``. Requests
    ///   already sent, and their retries, finish. Identity calls still update the stored identity.
    /// - Data usage granted again: later calls are queued and sent again.
    /// - The two ads flags never gate sending: every event made under this decision carries
    ///   `context.consent` (``Consent/contextValue``).
    public func setConsent(_ consent: Consent) async {
        switch gate.setConsent(consent) {
        case .purge:
            logger.info("data usage revoked under GDPR: pending events are purged and new calls dropped")
            await purgePending()
        case .resume:
            logger.info("data usage granted: sending resumes")
            await releaseHeld()
        case .none:
            break
        }
    }

    /// The last consent decision, if any.
    public var consent: Consent? { gate.consent }

    /// Records the App Tracking Transparency status. `context.device.advertisingId` is sent only
    /// while it is ``TrackingAuthorizationStatus/authorized`` (before any status is given, the id
    /// is sent as set unless `waitForTrackingAuthorization` is on). With
    /// `waitForTrackingAuthorization`, a determined status releases the held events, which then
    /// carry the advertising id only if authorized.
    public func setTrackingAuthorization(_ status: TrackingAuthorizationStatus) async {
        if gate.setTracking(status) == .resume {
            logger.info("ATT status determined: held events are sent", metadata: ["status": "\(status.rawValue)"])
            await releaseHeld()
        }
    }

    /// The last ATT status given, if any.
    public var trackingAuthorization: TrackingAuthorizationStatus? { gate.tracking }

    /// Allows sending for a client made with `autoStart: false`. Until then the client opens no
    /// connection and sends nothing: calls are queued (and held), ``run()`` runs its timer but
    /// hands nothing to the engine, and a shutdown writes everything to the disk queue without
    /// sending. ``run()`` must run too (as a service, or in a task) for events to go out.
    /// Calling it again, or with `autoStart: true`, does nothing.
    public func start() async {
        if gate.start() == .resume { await releaseHeld() }
    }

    /// Purges every pending event after data usage was revoked, and counts them.
    func purgePending() async {
        var purged = buffer.count + released.count + spilledTags.count
        buffer.removeAll()
        released.removeAll()
        spilledTags.removeAll()
        if let overflow { removeFile(overflow) }
        if let diskQueue, snapshotDisposal != .none, snapshotDisposal != .protect {
            // The snapshot read at creation has not been disposed of yet: its events were just purged.
            removeFile(diskQueue)
            snapshotDisposal = .none
        }
        purged += ledger.takeUndelivered().count
        counters.purgedByConsent += purged
        if !pumpBusy { resumeIdleWaiters() }
        await withdrawFromEngine()
    }

    /// Takes back the events waiting in the engine (not in a request yet) and counts them purged.
    func withdrawFromEngine() async {
        let tags = await engine.withdrawQueued()
        for tag in tags { ledger.remove(tag) }
        counters.purgedByConsent += tags.count
    }

    private func removeFile(_ queue: DiskQueue) {
        do { try queue.remove() } catch {
            logger.error("cannot remove a queue file after consent was revoked", metadata: ["path": "\(queue.path)", "error": "\(error)"])
        }
    }
}
