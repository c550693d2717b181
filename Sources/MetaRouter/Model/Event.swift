import JSONCore

/// One analytics event.
///
/// The event keeps every member it was given, in order, so unknown fields survive untouched and
/// values round-trip exactly. The typed properties read and write the well-known members.
public struct Event: Sendable, Equatable {
    /// Every member of the event, in order.
    public private(set) var members: JSONObject

    /// The event type.
    public var type: EventType {
        didSet { members["type"] = .string(type.rawValue) }
    }

    /// Creates an empty event of `type`.
    public init(type: EventType) {
        self.type = type
        self.members = JSONObject([(key: "type", value: .string(type.rawValue))])
    }

    /// Wraps a decoded JSON object. Fails when `type` is missing or unknown.
    public init(json object: JSONObject) throws(EventError) {
        guard let raw = object["type"] else { throw EventError.missingType }
        guard let name = raw.stringValue else { throw EventError.unknownType(raw.encodedString) }
        guard let type = EventType(rawValue: name) else { throw EventError.unknownType(name) }
        self.type = type
        self.members = object
    }

    /// Parses one JSON object.
    public init(parsing bytes: some Collection<UInt8>) throws(EventError) {
        let value: JSONValue
        do { value = try JSONParser.parse(bytes) } catch { throw EventError.invalidJSON(error) }
        guard let object = value.objectValue else { throw EventError.notAnObject }
        try self.init(json: object)
    }

    /// The event as a JSON value.
    public var json: JSONValue { .object(members) }

    /// The compact JSON encoding.
    public var encoded: [UInt8] { json.encoded }

    /// Reads or writes any member; `nil` removes it.
    public subscript(member key: String) -> JSONValue? {
        get { members[key] }
        set {
            if key == "type", let name = newValue?.stringValue, let t = EventType(rawValue: name) {
                type = t
                return
            }
            members[key] = newValue
        }
    }

    func string(_ key: String) -> String? { members[key]?.stringValue }
    mutating func setString(_ key: String, _ value: String?) { members[key] = value.map { .string($0) } }
    func object(_ key: String) -> JSONObject? { members[key]?.objectValue }
    mutating func setObject(_ key: String, _ value: JSONObject?) { members[key] = value.map { .object($0) } }

    /// The track event name.
    public var event: String? {
        get { string("event") }
        set { setString("event", newValue) }
    }
    /// The screen or page name.
    public var name: String? {
        get { string("name") }
        set { setString("name", newValue) }
    }
    /// Event properties (track, screen, page).
    public var properties: JSONObject? {
        get { object("properties") }
        set { setObject("properties", newValue) }
    }
    /// User or group traits (identify, group).
    public var traits: JSONObject? {
        get { object("traits") }
        set { setObject("traits", newValue) }
    }
    /// The known user.
    public var userId: String? {
        get { string("userId") }
        set { setString("userId", newValue) }
    }
    /// The device or visitor before identification.
    public var anonymousId: String? {
        get { string("anonymousId") }
        set { setString("anonymousId", newValue) }
    }
    /// The group (account, organisation) for group events.
    public var groupId: String? {
        get { string("groupId") }
        set { setString("groupId", newValue) }
    }
    /// The previous id on alias events.
    public var previousId: String? {
        get { string("previousId") }
        set { setString("previousId", newValue) }
    }
    /// The unique message id, `<epochMillis>-<uuid>` when generated here.
    public var messageId: String? {
        get { string("messageId") }
        set { setString("messageId", newValue) }
    }
    /// When the event happened (ISO 8601), kept exactly as given.
    public var timestamp: String? {
        get { string("timestamp") }
        set { setString("timestamp", newValue) }
    }
    /// The event context (library, app, device, os, locale, timezone, ...).
    public var context: JSONObject? {
        get { object("context") }
        set { setObject("context", newValue) }
    }
    /// Per-destination switches.
    public var integrations: JSONObject? {
        get { object("integrations") }
        set { setObject("integrations", newValue) }
    }
    /// When the event was sent. The engine stamps this at each attempt; a captured value is never forwarded.
    public var sentAt: String? {
        get { string("sentAt") }
        set { setString("sentAt", newValue) }
    }
}

/// Why a JSON document is not an event.
public enum EventError: Error, Sendable, Equatable, CustomStringConvertible {
    case invalidJSON(JSONError)
    case notAnObject
    case missingType
    case unknownType(String)

    /// A stable reason code, as used in dead-letter files.
    public var reason: String {
        switch self {
        case .invalidJSON(let e): e.kind == .invalidUTF8 ? "invalid_utf8" : "invalid_json"
        case .notAnObject: "not_an_object"
        case .missingType: "missing_type"
        case .unknownType: "unknown_type"
        }
    }

    public var description: String {
        switch self {
        case .invalidJSON(let e): "invalid JSON: \(e)"
        case .notAnObject: "the JSON value is not an object"
        case .missingType: "the event has no \"type\""
        case .unknownType(let t): "unknown event type \(t)"
        }
    }
}
