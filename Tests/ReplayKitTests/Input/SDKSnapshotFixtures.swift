import Foundation

/// Offline-queue files written the way the MetaRouter iOS SDK writes them: its Codable event
/// types through a plain `JSONEncoder` (so `/` is escaped as `\/`, integers above 2^53 are
/// exact, and messageIds are `<epoch ms>-<UPPERCASE UUID>`). The SDK's encoder writes the two
/// top-level keys in either order; both are made here.
enum SDKSnapshot {
    /// A JSON value as the SDK's `CodableValue` encodes it.
    enum Value: Encodable {
        case string(String), int(Int64), double(Double), bool(Bool), object([String: Value]), array([Value]), null

        func encode(to encoder: Encoder) throws {
            var c = encoder.singleValueContainer()
            switch self {
            case .string(let s): try c.encode(s)
            case .int(let i): try c.encode(i)
            case .double(let d): try c.encode(d)
            case .bool(let b): try c.encode(b)
            case .object(let o): try c.encode(o)
            case .array(let a): try c.encode(a)
            case .null: try c.encodeNil()
            }
        }
    }

    /// The SDK's enriched event.
    struct Event: Encodable {
        var type = "track"
        var event: String?
        var name: String?
        var userId: String?
        var anonymousId: String
        var groupId: String?
        var previousId: String?
        var messageId: String
        var timestamp: String
        var properties: [String: Value]?
        var traits: [String: Value]?
        var context: [String: Value]
        var integrations: [String: Value] = ["All": .bool(true)]
    }

    /// `{"version":..,"events":[..]}`, in this key order.
    struct VersionFirst: Encodable {
        let version: Value
        let events: [Event]
    }

    /// `{"events":[..],"version":..}`, in this key order.
    struct EventsFirst: Encodable {
        let events: [Event]
        let version: Value
    }

    /// The SDK's context for one device.
    static func context(device: String = "iPhone15,2") -> [String: Value] {
        [
            "library": .object(["name": .string("metarouter-ios"), "version": .string("1.4.2")]),
            "app": .object(["name": .string("Shop"), "version": .string("3.1"), "build": .string("310")]),
            "device": .object(["model": .string(device), "manufacturer": .string("Apple"), "type": .string("ios")]),
            "os": .object(["name": .string("iOS"), "version": .string("18.1")]),
            "providers": .object(["sift": .object(["enabled": .bool(true)])]),
            "page": .object(["url": .string("https://shop.example.com/p/42?ref=a/b"), "path": .string("/p/42")]),
            "locale": .string("de-CH"), "timezone": .string("Europe/Zurich"),
        ]
    }

    /// `count` track events of one device, `timestamp` for each from `timestamp(i)`.
    static func events(
        count: Int, anonymousId: String = "5F0C3E2A-1B7D-4C9E-8A31-0D6F2B4C8E17", start: Int = 0,
        timestamp: (Int) -> Date = { Date(timeIntervalSince1970: 1_780_000_000 + Double($0)) }
    ) -> [Event] {
        (start..<(start + count)).map { i in
            let date = timestamp(i)
            let ms = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
            let uuid = UUID(uuidString: String(format: "00000000-0000-4000-8000-%012X", i))!.uuidString
            return Event(
                event: "Product Viewed", userId: i % 2 == 0 ? "user-\(i % 7)" : nil, anonymousId: anonymousId,
                messageId: "\(ms)-\(uuid)", timestamp: iso8601(date),
                properties: [
                    "sku": .string("SKU/\(i)"), "price": .double(12.5), "big": .int(9_007_199_254_740_993 + Int64(i)),
                    "url": .string("https://shop.example.com/p/\(i)"),
                ],
                context: context())
        }
    }

    /// The file's bytes, as the SDK's `JSONEncoder` writes them.
    static func encode(_ events: [Event], version: Value = .int(1), eventsFirst: Bool = false) throws -> Data {
        let encoder = JSONEncoder()
        return eventsFirst
            ? try encoder.encode(EventsFirst(events: events, version: version))
            : try encoder.encode(VersionFirst(version: version, events: events))
    }

    /// An ISO-8601 date-time with milliseconds, as the SDK writes `timestamp`.
    static func iso8601(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: date)
    }
}
