import JSONCore

extension Event {
    /// A track event.
    public static func track(_ event: String, properties: JSONObject? = nil) -> Event {
        var e = Event(type: .track)
        e.event = event
        e.properties = properties
        return e
    }

    /// An identify event.
    public static func identify(_ userId: String, traits: JSONObject? = nil) -> Event {
        var e = Event(type: .identify)
        e.userId = userId
        e.traits = traits
        return e
    }

    /// A group event.
    public static func group(_ groupId: String, traits: JSONObject? = nil) -> Event {
        var e = Event(type: .group)
        e.groupId = groupId
        e.traits = traits
        return e
    }

    /// A screen event.
    public static func screen(_ name: String, properties: JSONObject? = nil) -> Event {
        var e = Event(type: .screen)
        e.name = name
        e.properties = properties
        return e
    }

    /// A page event.
    public static func page(_ name: String, properties: JSONObject? = nil) -> Event {
        var e = Event(type: .page)
        e.name = name
        e.properties = properties
        return e
    }

    /// An alias event linking the sender's anonymousId (filled in when the event is prepared) to
    /// `newUserId`, as the MetaRouter SDKs send it: no `previousId` unless one is given (the
    /// Segment form, for a caller that links another id).
    public static func alias(_ newUserId: String, previousId: String? = nil) -> Event {
        var e = Event(type: .alias)
        e.userId = newUserId
        e.previousId = previousId
        return e
    }
}
