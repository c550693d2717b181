/// The identity fields the SDK attaches to events.
public struct Identity: Sendable, Equatable, Codable {
    /// The stable device id: a lowercase UUID, made once and reused.
    public var anonymousId: String
    /// The known user, after identify or alias.
    public var userId: String?
    /// The group, after a group call.
    public var groupId: String?
    /// The advertising id (IDFA), only ever a valid, non-zero UUID.
    public var advertisingId: String?

    /// Creates an identity.
    public init(anonymousId: String, userId: String? = nil, groupId: String? = nil, advertisingId: String? = nil) {
        self.anonymousId = anonymousId
        self.userId = userId
        self.groupId = groupId
        self.advertisingId = advertisingId
    }
}
