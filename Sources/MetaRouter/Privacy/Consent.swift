import JSONCore

/// The user's consent decision, with FunnelMob's four fields, which map to Google Consent Mode v2.
///
/// Pass it to ``MetaRouterClient/setConsent(_:)``. Only ``isUserSubjectToGDPR`` together with
/// ``hasConsentForDataUsage`` gates sending; every field is forwarded in `context.consent`
/// (see ``contextValue``).
public struct Consent: Sendable, Equatable {
    /// Whether GDPR (or the DMA) applies to this user. When false, the other flags are advisory:
    /// the client sends normally and forwards them.
    public var isUserSubjectToGDPR: Bool
    /// Consent to collect and use the user's data (Consent Mode `ad_user_data`). When false under
    /// GDPR, the client sends nothing, purges what is pending and drops new calls.
    public var hasConsentForDataUsage: Bool
    /// Consent to personalised ads (Consent Mode `ad_personalization`). Forwarded only.
    public var hasConsentForAdsPersonalization: Bool
    /// Consent to store ad identifiers (Consent Mode `ad_storage`). Forwarded only.
    public var hasConsentForAdStorage: Bool

    /// Creates a consent decision.
    public init(
        isUserSubjectToGDPR: Bool, hasConsentForDataUsage: Bool,
        hasConsentForAdsPersonalization: Bool, hasConsentForAdStorage: Bool
    ) {
        self.isUserSubjectToGDPR = isUserSubjectToGDPR
        self.hasConsentForDataUsage = hasConsentForDataUsage
        self.hasConsentForAdsPersonalization = hasConsentForAdsPersonalization
        self.hasConsentForAdStorage = hasConsentForAdStorage
    }

    /// Whether events may be collected and sent: GDPR does not apply, or data usage is granted.
    public var allowsDataUsage: Bool { !isUserSubjectToGDPR || hasConsentForDataUsage }

    /// The `context.consent` object sent with every event made while this decision holds: the
    /// four fields under their FunnelMob names (booleans, which mr-replay's consent rule reads),
    /// then the Consent Mode v2 signals (`"granted"` / `"denied"`):
    /// `{"isUserSubjectToGDPR", "hasConsentForDataUsage", "hasConsentForAdsPersonalization",
    /// "hasConsentForAdStorage", "ad_user_data", "ad_personalization", "ad_storage"}`.
    public var contextValue: JSONObject {
        func mode(_ granted: Bool) -> JSONValue { .string(granted ? "granted" : "denied") }
        return JSONObject([
            (key: "isUserSubjectToGDPR", value: .bool(isUserSubjectToGDPR)),
            (key: "hasConsentForDataUsage", value: .bool(hasConsentForDataUsage)),
            (key: "hasConsentForAdsPersonalization", value: .bool(hasConsentForAdsPersonalization)),
            (key: "hasConsentForAdStorage", value: .bool(hasConsentForAdStorage)),
            (key: "ad_user_data", value: mode(hasConsentForDataUsage)),
            (key: "ad_personalization", value: mode(hasConsentForAdsPersonalization)),
            (key: "ad_storage", value: mode(hasConsentForAdStorage)),
        ])
    }
}
