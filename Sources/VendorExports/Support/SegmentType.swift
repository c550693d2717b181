/// The Segment spec's call types, as written in an event's `type`.
enum SegmentType: UInt8 {
    /// One case per call type.
    case track, identify, page, screen, group, alias

    /// The member `"type":"..."` as written.
    var member: StaticString {
        switch self {
        case .track: return #""type":"track""#
        case .identify: return #""type":"identify""#
        case .page: return #""type":"page""#
        case .screen: return #""type":"screen""#
        case .group: return #""type":"group""#
        case .alias: return #""type":"alias""#
        }
    }
}
