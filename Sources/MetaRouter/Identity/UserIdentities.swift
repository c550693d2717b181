import JSONCore

/// The typed identities of a user, as an mParticle IDSync request carries them, for
/// ``MetaRouterClient/login(_:)`` and ``MetaRouterClient/modify(_:removing:)``.
///
/// Where each one goes on events:
///
/// | identity | sent as |
/// |---|---|
/// | `customerId` | `userId` |
/// | `email` | `traits.email` (and `context.traits.email`) |
/// | `mobileNumber` | `traits.phone` (and `context.traits.phone`) |
/// | `other["<name>"]` | `traits.<name>` (and `context.traits.<name>`) |
/// | `traits` | merged into the user's traits; the typed identities above win on a clash |
public struct UserIdentities: Sendable, Equatable {
    /// The app's own id for the user (IDSync `customerId`): becomes `userId`.
    public var customerId: String?
    /// The user's email address: trait `email`.
    public var email: String?
    /// The user's mobile number: trait `phone`.
    public var mobileNumber: String?
    /// Any other ids (IDSync `other`, `other2`, a CRM id, ...), each sent as the trait of that name.
    public var other: [String: String]
    /// Any other user traits (plan, name, ...).
    public var traits: JSONObject?

    /// Creates a set of identities; all are optional.
    public init(
        customerId: String? = nil, email: String? = nil, mobileNumber: String? = nil,
        other: [String: String] = [:], traits: JSONObject? = nil
    ) {
        self.customerId = customerId
        self.email = email
        self.mobileNumber = mobileNumber
        self.other = other
        self.traits = traits
    }

    /// The trait names of the typed identities.
    package enum TraitName {
        package static let email = "email"
        package static let phone = "phone"
    }

    /// Every identity except `customerId`, as traits: `traits` first, then `other` (by name),
    /// then `email` and `phone`.
    package var traitValues: JSONObject {
        var out = traits ?? JSONObject()
        for (name, id) in other.sorted(by: { $0.key < $1.key }) { out[name] = .string(id) }
        if let email { out[TraitName.email] = .string(email) }
        if let mobileNumber { out[TraitName.phone] = .string(mobileNumber) }
        return out
    }
}
