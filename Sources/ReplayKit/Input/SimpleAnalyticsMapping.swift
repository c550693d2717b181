import JSONCore
@_spi(PerLine) import MetaRouterDelivery
import SimpleAnalytics
import Timestamps

/// How a SimpleAnalytics payload becomes MetaRouter events (the table in docs/enrichment.md):
///
/// - an item → `track`: `event` = `description`, `properties` = `parameters` (keys sorted),
///   `timestamp` = `timestamp` as sent (its zone kept);
/// - a counter → `track`: `event` = `name`, `properties.count` = `count`, `timestamp` = its
///   `timestamp` (the first count);
/// - `device_id` → `anonymousId` (left out when empty);
/// - `app_name`, `app_version` → `context.app.name`, `.version`; `platform` → `context.os.name`
///   (the part before ` (`) and `context.device.type` (the part in parentheses, else the whole
///   platform); `system_version` → `context.os.version`;
/// - `messageId`: the SDK form `<millis>-<uuid>` with the entry's time and a version-8 uuid
///   hashed from the mapped event and its occurrence among identical entries of the payload,
///   so the same payload gives the same ids in every run (and a payload an app submitted
///   twice gives the same ids twice, for the destination to deduplicate).
enum SimpleAnalyticsMapping {
    /// Replaces `events` with the events of `payload`, items first, then counters.
    static func events(of payload: SimpleAnalyticsPayload, into events: inout [[UInt8]]) {
        events.removeAll(keepingCapacity: true)
        var occurrences: [[UInt8]: Int] = [:]
        func add(_ event: [UInt8], timestamp: String) {
            let seen = occurrences[event, default: 0] + 1
            occurrences[event] = seen
            events.append(withMessageId(event, occurrence: seen, timestamp: timestamp))
        }
        for item in payload.items {
            var properties: [UInt8] = [UInt8(ascii: "{")]
            for (n, key) in item.parameters.keys.sorted().enumerated() {
                if n > 0 { properties.append(UInt8(ascii: ",")) }
                JSONStrings.appendQuoted(key, to: &properties)
                properties.append(UInt8(ascii: ":"))
                JSONStrings.appendQuoted(item.parameters[key] ?? "", to: &properties)
            }
            properties.append(UInt8(ascii: "}"))
            add(track(item.description, properties, item.timestamp, item.device), timestamp: item.timestamp)
        }
        for counter in payload.counters {
            let properties = Array(#"{"count":\#(counter.count)}"#.utf8)
            add(track(counter.name, properties, counter.timestamp, counter.device), timestamp: counter.timestamp)
        }
    }

    /// A `track` event without a messageId, as compact JSON.
    static func track(_ name: String, _ properties: [UInt8], _ timestamp: String, _ device: SimpleAnalyticsPayload.Device)
        -> [UInt8]
    {
        var out = Array(#"{"type":"track","event":"#.utf8)
        JSONStrings.appendQuoted(name, to: &out)
        out.append(contentsOf: #","properties":"#.utf8)
        out.append(contentsOf: properties)
        if let id = device.deviceId, !id.isEmpty {
            out.append(contentsOf: #","anonymousId":"#.utf8)
            JSONStrings.appendQuoted(id, to: &out)
        }
        out.append(contentsOf: #","timestamp":"#.utf8)
        JSONStrings.appendQuoted(timestamp, to: &out)
        let context = self.context(device)
        if !context.isEmpty {
            out.append(contentsOf: #","context":"#.utf8)
            JSONWriter.write(.object(JSONObject(context)), into: &out)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// `context.app`, `context.os` and `context.device` from the device fields (empty ones left out).
    static func context(_ device: SimpleAnalyticsPayload.Device) -> [(key: String, value: JSONValue)] {
        func object(_ members: [(String, String?)]) -> JSONValue? {
            let present = members.compactMap { key, value in value.flatMap { $0.isEmpty ? nil : (key: key, value: JSONValue.string($0)) } }
            return present.isEmpty ? nil : .object(JSONObject(present))
        }
        let (osName, deviceType) = platformParts(device.platform)
        var context: [(key: String, value: JSONValue)] = []
        if let app = object([("name", device.appName), ("version", device.appVersion)]) { context.append(("app", app)) }
        if let os = object([("name", osName), ("version", device.systemVersion)]) { context.append(("os", os)) }
        if let type = object([("type", deviceType)]) { context.append(("device", type)) }
        return context
    }

    /// `iOS (iPhone)` → (`iOS`, `iPhone`); `macOS` → (`macOS`, `macOS`).
    static func platformParts(_ platform: String?) -> (os: String?, deviceType: String?) {
        guard let platform else { return (nil, nil) }
        guard let open = platform.firstIndex(of: "("), let close = platform.lastIndex(of: ")"), open < close else {
            return (platform, platform)
        }
        let os = platform[..<open].trimmingWhitespace
        let type = platform[platform.index(after: open)..<close].trimmingWhitespace
        return (os.isEmpty ? platform : os, type.isEmpty ? platform : type)
    }

    /// `event` with `"messageId"` added as its last member.
    static func withMessageId(_ event: [UInt8], occurrence: Int, timestamp: String) -> [UInt8] {
        let millis = Timestamp.epochMillis(timestamp) ?? 0
        let id = event.withUnsafeBufferPointer { MessageID.stable(line: $0, lineNumber: occurrence, millis: millis) }
        var out = event
        out.removeLast()  // the closing brace
        out.append(contentsOf: #","messageId":"#.utf8)
        MessageID.appendQuoted(id, to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }
}

extension Substring {
    /// Without leading and trailing spaces.
    fileprivate var trimmingWhitespace: String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
