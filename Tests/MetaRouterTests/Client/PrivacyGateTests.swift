@_spi(PerLine) import MetaRouter
import Testing

/// The pure privacy policy.
@Suite struct PrivacyGateTests {
    static func consent(gdpr: Bool, data: Bool) -> Consent {
        Consent(
            isUserSubjectToGDPR: gdpr, hasConsentForDataUsage: data,
            hasConsentForAdsPersonalization: true, hasConsentForAdStorage: true)
    }

    @Test func consentDropsOnlyWhenDataUsageIsRevokedUnderGDPR() {
        var gate = PrivacyGate()
        #expect(gate.admit() == .send)
        #expect(gate.setConsent(Self.consent(gdpr: false, data: false)) == .none)
        #expect(gate.admit() == .send)
        #expect(gate.setConsent(Self.consent(gdpr: true, data: false)) == .purge)
        #expect(gate.admit() == .drop)
        #expect(!gate.sends)
        #expect(gate.setConsent(Self.consent(gdpr: true, data: false)) == .none)
        #expect(gate.setConsent(Self.consent(gdpr: true, data: true)) == .resume)
        #expect(gate.admit() == .send)
    }

    @Test func autoStartAndTrackingHoldUntilTheyAreLifted() {
        var gate = PrivacyGate(autoStart: false, waitForTracking: true)
        #expect(gate.admit() == .hold(.waitingForTracking))
        #expect(!gate.forwardsAdvertisingId)
        #expect(gate.setTracking(.notDetermined) == .none)
        #expect(gate.setTracking(.denied) == .none)  // still not started
        #expect(gate.admit() == .hold(.notStarted))
        #expect(!gate.forwardsAdvertisingId)
        #expect(gate.start() == .resume)
        #expect(gate.start() == .none)
        #expect(gate.sends)
        #expect(gate.setTracking(.authorized) == .none)
        #expect(gate.forwardsAdvertisingId)
        #expect(gate.setConsent(Self.consent(gdpr: true, data: false)) == .purge)
        #expect(gate.admit() == .drop)
    }

    @Test func withoutATTTheAdvertisingIdIsForwardedAsSet() {
        var gate = PrivacyGate()
        #expect(gate.forwardsAdvertisingId)
        for status in TrackingAuthorizationStatus.allCases {
            _ = gate.setTracking(status)
            #expect(gate.forwardsAdvertisingId == (status == .authorized))
            #expect(gate.sends)
        }
    }
}
