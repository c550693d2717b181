import JSONCore

/// The consent rules of the FunnelMob / Google Consent Mode v2 seed, read from an event's
/// `context.consent`: `isUserSubjectToGDPR`, `hasConsentForDataUsage`.
enum ConsentRules {
    /// What an event's consent says.
    enum Verdict: Equatable {
        /// Subject to GDPR without a data-usage grant: the event must not be sent or stored.
        case denied
        /// Consent is known and allows sending: not subject to GDPR, or data usage granted.
        case granted
        /// The event says nothing decisive about consent.
        case unknown
    }

    /// The verdict of the event whose context layout is `ctx` (in `buf`).
    static func verdict(_ ctx: ObjectLayout, _ buf: UnsafeBufferPointer<UInt8>) -> Verdict {
        guard let c = ctx.member("consent", in: buf), c.kind == .object,
            let consent = ObjectLayout.scanNested(buf, c.value)
        else { return .unknown }
        let subject = literal(consent, "isUserSubjectToGDPR", buf)
        let dataUsage = literal(consent, "hasConsentForDataUsage", buf)
        if subject == true { return dataUsage == true ? .granted : .denied }
        if subject == false || dataUsage == true { return .granted }
        return .unknown
    }

    /// The verdict of a whole event line; `.unknown` when it is not an object with a context.
    static func verdict(ofEvent buf: UnsafeBufferPointer<UInt8>) -> Verdict {
        guard let top = try? ObjectLayout.scanDocument(buf), let c = top.member("context", in: buf), c.kind == .object,
            let ctx = ObjectLayout.scanNested(buf, c.value)
        else { return .unknown }
        return verdict(ctx, buf)
    }

    /// Why `verdict` forbids sending under `requireConsent`, or nil when it allows it.
    static func denial(_ verdict: Verdict, requireConsent: Bool) -> String? {
        switch verdict {
        case .denied: "context.consent.isUserSubjectToGDPR is true and context.consent.hasConsentForDataUsage is not true"
        case .unknown where requireConsent:
            "privacy.require_consent is on and the event carries no consent grant in context.consent"
        case .granted, .unknown: nil
        }
    }

    /// Whether a member is the literal `true` / `false`.
    static func literal(_ layout: ObjectLayout, _ key: String, _ buf: UnsafeBufferPointer<UInt8>) -> Bool? {
        guard let m = layout.member(key, in: buf), m.kind == .bool else { return nil }
        return buf[m.value.lowerBound] == UInt8(ascii: "t")
    }
}
