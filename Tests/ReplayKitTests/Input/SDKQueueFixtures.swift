import Foundation

/// Offline-queue files (`queue.v1.json`) written byte for byte the way each MetaRouter SDK writes
/// them, from the SDKs' public sources (see `docs/enrichment.md`, "MetaRouter SDK snapshots"):
///
/// - iOS (`EnrichedEventPayload` through a plain `JSONEncoder`): absent fields left out, keys in
///   no fixed order (either top-level order), `/` escaped as `\/`, timestamps in whole seconds,
///   messageIds `<ms>-<UPPERCASE UUID>`, screen names in `properties.name`, group ids also in
///   `properties.groupId`, `context.additional` always written, and a `sentAt` kept on events
///   put back after a failed send.
/// - Android (`kotlinx.serialization` with `encodeDefaults`): every field in declaration order,
///   absent ones as explicit `null` (`"sentAt":null`, `"advertisingId":null`), timestamps with
///   milliseconds, screen names in `event`.
/// - React Native (`JSON.stringify`): keys in insertion order, `anonymousId: "unknown"` on
///   events made before the stored identity loaded, `sentAt` last on events put back after a
///   failed send.
///
/// Every SDK's `alias(newUserId)` writes the new `userId` and the device's `anonymousId` (and
/// its `groupId` when set): no `previousId`.
enum SDKQueue {
    /// One device's session in a queue: a track, an identify, a group, a screen, an alias, and
    /// two events after the alias (the SDKs keep writing the userId they had).
    struct Session {
        var anonymousId: String
        var userId = "user-42"
        var newUserId = "user-42-new"
        var groupId = "acct-7"
        /// The first event's time; each next one is a second later.
        var start: Date
        /// The first messageId's millisecond part and the UUID's last digits, so ids are unique per session.
        var seed: Int
    }

    /// The events' ISO-8601 time `i` seconds after `start`, with or without milliseconds.
    static func time(_ s: Session, _ i: Int, millis: Bool) -> String {
        let date = s.start.addingTimeInterval(Double(i) + (millis ? 0.431 : 0))
        let f = ISO8601DateFormatter()
        f.formatOptions = millis ? [.withInternetDateTime, .withFractionalSeconds] : [.withInternetDateTime]
        return f.string(from: date)
    }

    static func messageId(_ s: Session, _ i: Int, uppercase: Bool) -> String {
        let ms = Int64(s.start.timeIntervalSince1970 * 1000) + Int64(i) * 1000
        let uuid = String(format: "9b2f6a1c-3d4e-4f50-8a6b-%06x%06x", s.seed, i)
        return "\(ms)-\(uppercase ? uuid.uppercased() : uuid)"
    }

    /// The messageIds of a session's events, in order (the same for every SDK's writer).
    static func messageIds(_ s: Session, uppercase: Bool = false) -> [String] {
        (0..<7).map { messageId(s, $0, uppercase: uppercase) }
    }

    static func wrap(_ events: [String], eventsFirst: Bool = false) -> String {
        let list = "[" + events.joined(separator: ",") + "]"
        return eventsFirst ? "{\"events\":\(list),\"version\":1}" : "{\"version\":1,\"events\":\(list)}"
    }
}

extension SDKQueue {
    static let iosContext =
        #"{"app":{"name":"Shop","version":"3.1","build":"310","namespace":"com.example.shop"},"device":{"manufacturer":"Apple","model":"iPhone 15 Pro","type":"phone"},"library":{"name":"metarouter-ios-sdk","version":"1.2.1"},"os":{"name":"iOS","version":"18.1"},"screen":{"density":3,"width":1179,"height":2556},"network":{"wifi":true},"locale":"en_US","timezone":"America\/Denver","additional":{},"providers":{"metarouter":{"sessionID":"1777886100000","sessionCount":3}}}"#

    /// A session as the iOS SDK queues it (the first two events were put back after a failed send).
    static func ios(_ s: Session, eventsFirst: Bool = false) -> String {
        func common(_ i: Int) -> String {
            "\"timestamp\":\"\(time(s, i, millis: false))\",\"writeKey\":\"wk_live_abc\",\"messageId\":\"\(messageId(s, i, uppercase: true))\",\"context\":\(iosContext)"
        }
        let sentAt = ",\"sentAt\":\"\(time(s, 9, millis: false))\""
        let anon = "\"anonymousId\":\"\(s.anonymousId)\""
        let events = [
            "{\"type\":\"track\",\"event\":\"Product Viewed\",\(anon),\"properties\":{\"sku\":\"SKU-1\",\"price\":12.5,\"qty\":2},\(common(0))\(sentAt)}",
            "{\"type\":\"identify\",\"userId\":\"\(s.userId)\",\(anon),\"traits\":{\"plan\":\"pro\"},\(common(1))\(sentAt)}",
            // Keys in another order: the encoder does not fix one.
            "{\(anon),\"type\":\"group\",\"groupId\":\"\(s.groupId)\",\"userId\":\"\(s.userId)\",\"properties\":{\"groupId\":\"\(s.groupId)\"},\"traits\":{\"name\":\"Acme\"},\(common(2))}",
            "{\"type\":\"screen\",\"userId\":\"\(s.userId)\",\(anon),\"groupId\":\"\(s.groupId)\",\"properties\":{\"tab\":\"feed\",\"name\":\"Home\"},\(common(3))}",
            "{\"type\":\"alias\",\"userId\":\"\(s.newUserId)\",\(anon),\"groupId\":\"\(s.groupId)\",\(common(4))}",
            "{\"messageId\":\"\(messageId(s, 5, uppercase: true))\",\"type\":\"track\",\"event\":\"Checkout Started\",\"userId\":\"\(s.userId)\",\(anon),\"groupId\":\"\(s.groupId)\",\"timestamp\":\"\(time(s, 5, millis: false))\",\"writeKey\":\"wk_live_abc\",\"context\":\(iosContext)}",
            "{\"type\":\"page\",\"userId\":\"\(s.userId)\",\(anon),\"groupId\":\"\(s.groupId)\",\"properties\":{\"name\":\"Cart\"},\(common(6))}",
        ]
        return wrap(events, eventsFirst: eventsFirst)
    }
}

extension SDKQueue {
    static let androidContext =
        #"{"app":{"name":"Shop","version":"3.1.0","build":"310","namespace":"com.example.shop"},"device":{"manufacturer":"Google","model":"Pixel 8","name":"shiba","type":"android","advertisingId":null},"library":{"name":"metarouter-android-sdk","version":"1.3.1"},"locale":"en-US","network":{"wifi":true},"os":{"name":"Android","version":"15"},"screen":{"width":412,"height":915,"density":2.63},"timezone":"America/Denver"}"#

    /// A session as the Android SDK queues it: every field, in declaration order, nulls written.
    static func android(_ s: Session) -> String {
        func event(_ i: Int, _ type: String, event: String?, userId: String?, groupId: String?, traits: String?, properties: String?) -> String {
            func q(_ v: String?) -> String { v.map { "\"\($0)\"" } ?? "null" }
            return "{\"type\":\"\(type)\",\"event\":\(q(event)),\"userId\":\(q(userId)),\"anonymousId\":\"\(s.anonymousId)\","
                + "\"groupId\":\(q(groupId)),\"traits\":\(traits ?? "null"),\"properties\":\(properties ?? "null"),"
                + "\"timestamp\":\"\(time(s, i, millis: true))\",\"context\":\(androidContext),"
                + "\"messageId\":\"\(messageId(s, i, uppercase: false))\",\"writeKey\":\"wk_live_abc\",\"sentAt\":null}"
        }
        let u = s.userId, g = s.groupId
        return wrap([
            event(0, "track", event: "Product Viewed", userId: nil, groupId: nil, traits: nil, properties: #"{"sku":"SKU-1","price":12.5,"qty":2}"#),
            event(1, "identify", event: nil, userId: u, groupId: nil, traits: #"{"plan":"pro"}"#, properties: nil),
            event(2, "group", event: nil, userId: u, groupId: g, traits: #"{"name":"Acme"}"#, properties: nil),
            event(3, "screen", event: "Home", userId: u, groupId: g, traits: nil, properties: #"{"tab":"feed"}"#),
            // alias() stores the new userId first, so the event carries it.
            event(4, "alias", event: nil, userId: s.newUserId, groupId: g, traits: nil, properties: nil),
            event(5, "track", event: "Checkout Started", userId: s.newUserId, groupId: g, traits: nil, properties: "{}"),
            event(6, "page", event: "Cart", userId: s.newUserId, groupId: g, traits: nil, properties: "{}"),
        ])
    }
}

extension SDKQueue {
    static let rnContext =
        #"{"library":{"name":"metarouter-react-native-sdk","version":"1.7.0"},"locale":"en-US","timezone":"America/Denver","device":{"manufacturer":"Google","model":"Pixel 8","type":"android","name":"shiba"},"os":{"name":"Android","version":"15"},"app":{"name":"Shop","version":"3.1.0","build":"310","namespace":"com.example.shop"},"screen":{"width":412,"height":915,"density":2.63},"network":{"wifi":true}}"#

    /// A session as the React Native SDK queues it. With `unknownUntil: n`, the first `n` events
    /// were made before the stored identity loaded (`anonymousId: "unknown"`); the first two were
    /// put back after a failed send (a stale `sentAt`, last).
    static func reactNative(_ s: Session, unknownUntil: Int = 0) -> String {
        func tail(_ i: Int, userId: String?, groupId: String?, sentAt: Bool = false) -> String {
            let anon = i < unknownUntil ? "unknown" : s.anonymousId
            return "\"anonymousId\":\"\(anon)\"" + (userId.map { ",\"userId\":\"\($0)\"" } ?? "") + (groupId.map { ",\"groupId\":\"\($0)\"" } ?? "")
                + ",\"writeKey\":\"wk_live_abc\",\"messageId\":\"\(messageId(s, i, uppercase: false))\",\"context\":\(rnContext)"
                + (sentAt ? ",\"sentAt\":\"\(time(s, 9, millis: true))\"" : "") + "}"
        }
        let u = s.userId, g = s.groupId
        return wrap([
            "{\"type\":\"track\",\"event\":\"Product Viewed\",\"properties\":{\"sku\":\"SKU-1\"},\"timestamp\":\"\(time(s, 0, millis: true))\",\(tail(0, userId: nil, groupId: nil, sentAt: true))",
            "{\"type\":\"identify\",\"userId\":\"\(u)\",\"traits\":{\"plan\":\"pro\"},\"timestamp\":\"\(time(s, 1, millis: true))\",\(tail(1, userId: nil, groupId: nil, sentAt: true))",
            "{\"type\":\"group\",\"groupId\":\"\(g)\",\"traits\":{\"name\":\"Acme\"},\"timestamp\":\"\(time(s, 2, millis: true))\",\(tail(2, userId: u, groupId: nil))",
            "{\"type\":\"screen\",\"event\":\"Home\",\"properties\":{\"tab\":\"feed\"},\"timestamp\":\"\(time(s, 3, millis: true))\",\(tail(3, userId: u, groupId: g))",
            "{\"type\":\"alias\",\"userId\":\"\(s.newUserId)\",\"timestamp\":\"\(time(s, 4, millis: true))\",\(tail(4, userId: nil, groupId: g))",
            "{\"type\":\"track\",\"event\":\"Checkout Started\",\"properties\":{},\"timestamp\":\"\(time(s, 5, millis: true))\",\(tail(5, userId: s.newUserId, groupId: g))",
            "{\"type\":\"page\",\"event\":\"Cart\",\"properties\":{},\"timestamp\":\"\(time(s, 6, millis: true))\",\(tail(6, userId: s.newUserId, groupId: g))",
        ])
    }
}
