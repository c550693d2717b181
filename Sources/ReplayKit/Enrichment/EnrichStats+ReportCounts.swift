import Foundation

extension EnrichStats {
    /// The privacy and enrichment actions, for the report.
    var privacyCounts: [String: Int] {
        [
            "advertising_ids_removed": advertisingIdsRemoved,
            "properties_dropped": propertiesDropped,
            "anonymous_ids_filled": anonymousIdsFilled,
            "anonymous_ids_derived": anonymousIdsDerived,
            "original_timestamps_used": originalTimestampsUsed,
            "consent_dropped": skipped[SkipReason.consentDropped.rawValue] ?? 0,
            "user_ids_carried": userIdsCarried,
            "group_ids_carried": groupIdsCarried,
            "message_ids_generated": messageIdsGenerated,
            "timestamps_defaulted": timestampsDefaulted,
            "sent_at_dropped": sentAtDropped,
            "write_keys_dropped": writeKeysDropped,
        ]
    }
}
