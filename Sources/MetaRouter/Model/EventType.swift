/// The six event types of the Segment/MetaRouter spec.
public enum EventType: String, Sendable, CaseIterable, Codable {
    case track, identify, group, screen, page, alias
}
