/// App Tracking Transparency status, as Apple's `ATTrackingManager.AuthorizationStatus` reports
/// it. Pass it to ``MetaRouterClient/setTrackingAuthorization(_:)``.
public enum TrackingAuthorizationStatus: String, Sendable, Equatable, CaseIterable {
    /// The user has not answered the prompt yet.
    case notDetermined
    /// Tracking is restricted on the device (parental controls, MDM).
    case restricted
    /// The user refused tracking.
    case denied
    /// The user allowed tracking: the advertising id (IDFA) may be sent.
    case authorized

    /// Whether the user's decision is known (every status except ``notDetermined``).
    public var isDetermined: Bool { self != .notDetermined }
}
