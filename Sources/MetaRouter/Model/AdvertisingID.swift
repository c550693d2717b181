import Foundation

/// The SDK's advertising identifier (IDFA) rules.
package enum AdvertisingID {
    /// The IDFA that devices report when tracking is not allowed.
    package static let zero = "00000000-0000-0000-0000-000000000000"

    /// Returns `value` when it is a valid UUID that is not all zeros, else `nil` (absent).
    package static func validated(_ value: String?) -> String? {
        guard let value, let uuid = UUID(uuidString: value) else { return nil }
        return uuid.uuidString == zero ? nil : value
    }
}
