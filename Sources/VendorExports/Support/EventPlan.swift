/// One Segment event before it is written: its fields as ``Piece``s, in the order
/// ``EventRenderer`` writes them.
struct EventPlan {
    /// The call type.
    var type = SegmentType.track
    /// `event` (track).
    var event = Piece.absent
    /// `name` (page, screen).
    var name = Piece.absent
    /// `userId`.
    var userId = Piece.absent
    /// `anonymousId`.
    var anonymousId = Piece.absent
    /// `groupId` (group).
    var groupId = Piece.absent
    /// `previousId` (alias).
    var previousId = Piece.absent
    /// `messageId`.
    var messageId = Piece.absent
    /// `timestamp`, an ISO 8601 string.
    var timestamp = Piece.absent
    /// `properties`.
    var properties = Piece.absent
    /// `traits` (identify, group).
    var traits = Piece.absent
    /// `context`.
    var context = Piece.absent
    /// `integrations`.
    var integrations = Piece.absent
    /// Further top-level members written after the others: `members[lower..<upper]` of the
    /// workspace (members of a Segment-shaped event that are passed through as they are).
    var extra: Range<UInt32> = 0..<0

    /// Whether the event has a userId or an anonymousId (Segment needs one of them).
    var hasIdentity: Bool { userId.isPresent || anonymousId.isPresent }
}
