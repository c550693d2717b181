/// The client's privacy policy as a pure state machine: consent (FunnelMob / Consent Mode v2),
/// App Tracking Transparency (Trackier, FunnelMob) and `autoStart`. ``MetaRouterClient`` asks it
/// what to do with each call and applies the changes it returns.
package struct PrivacyGate: Sendable, Equatable {
    /// What happens to a new call.
    package enum Admission: Sendable, Equatable {
        /// Queue it; the pump may send it.
        case send
        /// Queue it, but nothing is sent yet (see ``HoldReason``).
        case hold(HoldReason)
        /// Drop it: data usage is revoked under GDPR.
        case drop
    }

    /// Why events are held instead of sent.
    package enum HoldReason: Sendable, Equatable {
        /// `autoStart` is false and ``MetaRouterClient/start()`` has not been called.
        case notStarted
        /// `waitForTrackingAuthorization` is on and the ATT status is not determined.
        case waitingForTracking
    }

    /// What a change of state asks the client to do.
    package enum Change: Sendable, Equatable {
        /// Nothing.
        case none
        /// Data usage was revoked: purge every pending event.
        case purge
        /// Sending may resume: wake the pump and release held events.
        case resume
    }

    /// The last consent decision, nil until one is set (the client then sends normally).
    package private(set) var consent: Consent?
    /// The last ATT status, nil until one is set (the advertising id is then sent as set).
    package private(set) var tracking: TrackingAuthorizationStatus?
    /// Whether sending is allowed to start (`autoStart`, or ``start()`` was called).
    package private(set) var started: Bool
    /// Whether events wait for a determined ATT status.
    package let waitForTracking: Bool

    package init(autoStart: Bool = true, waitForTracking: Bool = false) {
        self.started = autoStart
        self.waitForTracking = waitForTracking
    }

    /// Whether calls are collected at all (not revoked under GDPR).
    package var collects: Bool { consent?.allowsDataUsage ?? true }

    /// Whether events wait for the ATT decision.
    package var waitingForTracking: Bool { waitForTracking && !(tracking?.isDetermined ?? false) }

    /// Whether queued events may be handed to the engine (and so to the network).
    package var sends: Bool { collects && started && !waitingForTracking }

    /// Whether `context.device.advertisingId` may be sent: only when ATT is authorized, or when no
    /// status was ever given and none is waited for (ATT not in use: the id set with
    /// `setAdvertisingId` is sent).
    package var forwardsAdvertisingId: Bool {
        if let tracking { return tracking == .authorized }
        return !waitForTracking
    }

    /// What happens to a new call now.
    package func admit() -> Admission {
        if !collects { return .drop }
        if waitingForTracking { return .hold(.waitingForTracking) }
        if !started { return .hold(.notStarted) }
        return .send
    }

    /// Records a consent decision.
    package mutating func setConsent(_ new: Consent) -> Change {
        let before = self
        consent = new
        return change(from: before)
    }

    /// Records the ATT status.
    package mutating func setTracking(_ status: TrackingAuthorizationStatus) -> Change {
        let before = self
        tracking = status
        return change(from: before)
    }

    /// Allows sending (`start()` with `autoStart: false`); starting twice changes nothing.
    package mutating func start() -> Change {
        let before = self
        started = true
        return change(from: before)
    }

    private func change(from before: PrivacyGate) -> Change {
        if before.collects && !collects { return .purge }
        if !before.sends && sends { return .resume }
        return .none
    }
}
