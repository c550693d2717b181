import JSONCore
import Timestamps

/// One submission of the SimpleAnalytics Swift package (`AppAnalytics`), checked field by field:
/// `{"items": [...], "counters": [...]}` plus the device fields.
///
/// The package sends `device_id`, `app_name`, `app_version`, `platform` and `system_version`
/// once, at the top level; its README lists them on every item and counter. Both are read: a
/// field on an entry wins over the top-level one. The collector checks payloads with this type
/// before it stores them, and mr-replay before it maps them to events, so both accept exactly
/// the same payloads.
package struct SimpleAnalyticsPayload: Sendable, Equatable {
    /// Where an entry was recorded (each field nil when the payload does not say).
    package struct Device: Sendable, Equatable {
        /// `device_id`: the identifier the app passed to `setEndpoint(_:deviceID:)`.
        package var deviceId: String?
        /// `app_name`.
        package var appName: String?
        /// `app_version`.
        package var appVersion: String?
        /// `platform`, e.g. `iOS (iPhone)` or `macOS`.
        package var platform: String?
        /// `system_version`, e.g. `17.4.1`.
        package var systemVersion: String?

        package init(
            deviceId: String? = nil, appName: String? = nil, appVersion: String? = nil, platform: String? = nil,
            systemVersion: String? = nil
        ) {
            self.deviceId = deviceId
            self.appName = appName
            self.appVersion = appVersion
            self.platform = platform
            self.systemVersion = systemVersion
        }
    }

    /// An analytics item (`AppAnalytics.addItem(_:params:)`).
    package struct Item: Sendable, Equatable {
        /// `description`: what happened.
        package var description: String
        /// `parameters`: the optional `[String: String]` details.
        package var parameters: [String: String]
        /// `timestamp` as sent: ISO 8601 with the device's zone, e.g. `2026-11-23T09:15:04-05:00`.
        package var timestamp: String
        /// The device fields, the entry's own over the payload's.
        package var device: Device
    }

    /// A counter (`AppAnalytics.countItem(_:)`).
    package struct Counter: Sendable, Equatable {
        /// `name`: what was counted.
        package var name: String
        /// `count`: how many times, in this collection session.
        package var count: Int
        /// `timestamp` as sent: when the first count was recorded.
        package var timestamp: String
        /// The device fields, the entry's own over the payload's.
        package var device: Device
    }

    /// The items, in order.
    package var items: [Item]
    /// The counters, in order.
    package var counters: [Counter]

    /// The names of the device fields, as the payload spells them.
    package static let deviceFields = ["device_id", "app_name", "app_version", "platform", "system_version"]

    /// Whether `value` is shaped like a payload (used to recognise inputs): an object without
    /// `type` that has an `items` or a `counters` array.
    package static func isPayloadShaped(_ value: JSONValue) -> Bool {
        guard let object = value.objectValue, object["type"] == nil else { return false }
        return object["items"]?.arrayValue != nil || object["counters"]?.arrayValue != nil
    }

    /// Parses and checks one payload.
    /// - Throws: ``SimpleAnalyticsPayloadError`` naming the field (`items[2].timestamp`), or
    ///   `body` when it is not JSON.
    package init(parsing bytes: some Collection<UInt8>) throws(SimpleAnalyticsPayloadError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw SimpleAnalyticsPayloadError(field: "body", problem: "is not valid JSON: \(error)")
        }
        try self.init(value)
    }

    /// Checks one parsed payload.
    /// - Throws: ``SimpleAnalyticsPayloadError`` naming the first field that is wrong.
    package init(_ value: JSONValue) throws(SimpleAnalyticsPayloadError) {
        guard let object = value.objectValue else {
            throw SimpleAnalyticsPayloadError(field: "body", problem: "is not a JSON object")
        }
        let itemValues = try Self.array(object, "items")
        let counterValues = try Self.array(object, "counters")
        guard itemValues != nil || counterValues != nil else {
            throw SimpleAnalyticsPayloadError(field: "body", problem: "has neither an \"items\" nor a \"counters\" array")
        }
        let shared = try Self.device(object, over: Device(), at: "")
        var items: [Item] = []
        for (index, entry) in (itemValues ?? []).enumerated() {
            items.append(try Self.item(entry, at: "items[\(index)]", shared: shared))
        }
        var counters: [Counter] = []
        for (index, entry) in (counterValues ?? []).enumerated() {
            counters.append(try Self.counter(entry, at: "counters[\(index)]", shared: shared))
        }
        self.items = items
        self.counters = counters
    }

    package init(items: [Item], counters: [Counter]) {
        self.items = items
        self.counters = counters
    }

    private static func item(_ value: JSONValue, at path: String, shared: Device) throws(SimpleAnalyticsPayloadError) -> Item {
        guard let entry = value.objectValue else {
            throw SimpleAnalyticsPayloadError(field: path, problem: "is not an object")
        }
        let description = try requiredString(entry, "description", at: path)
        var parameters: [String: String] = [:]
        if let raw = entry["parameters"], !raw.isNull {
            guard let object = raw.objectValue else {
                throw SimpleAnalyticsPayloadError(field: "\(path).parameters", problem: "is not an object of strings")
            }
            for (key, member) in object {
                guard let text = member.stringValue else {
                    throw SimpleAnalyticsPayloadError(field: "\(path).parameters.\(key)", problem: "is not a string")
                }
                parameters[key] = text
            }
        }
        return Item(
            description: description, parameters: parameters, timestamp: try timestamp(entry, at: path),
            device: try device(entry, over: shared, at: path + "."))
    }

    private static func counter(_ value: JSONValue, at path: String, shared: Device) throws(SimpleAnalyticsPayloadError) -> Counter {
        guard let entry = value.objectValue else {
            throw SimpleAnalyticsPayloadError(field: path, problem: "is not an object")
        }
        let name = try requiredString(entry, "name", at: path)
        guard case .number(let number)? = entry["count"], let count = number.intValue, count >= 0 else {
            throw SimpleAnalyticsPayloadError(field: "\(path).count", problem: "is not a whole number of 0 or more")
        }
        return Counter(
            name: name, count: count, timestamp: try timestamp(entry, at: path),
            device: try device(entry, over: shared, at: path + "."))
    }

    /// `key` of `object` as an array; nil when absent or null.
    private static func array(_ object: JSONObject, _ key: String) throws(SimpleAnalyticsPayloadError) -> [JSONValue]? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let array = value.arrayValue else {
            throw SimpleAnalyticsPayloadError(field: key, problem: "is not an array")
        }
        return array
    }

    private static func requiredString(_ entry: JSONObject, _ key: String, at path: String) throws(SimpleAnalyticsPayloadError)
        -> String
    {
        guard let text = entry[key]?.stringValue, !text.isEmpty else {
            throw SimpleAnalyticsPayloadError(field: "\(path).\(key)", problem: "is missing or not a non-empty string")
        }
        return text
    }

    private static func timestamp(_ entry: JSONObject, at path: String) throws(SimpleAnalyticsPayloadError) -> String {
        guard let text = entry["timestamp"]?.stringValue else {
            throw SimpleAnalyticsPayloadError(field: "\(path).timestamp", problem: "is missing or not a string")
        }
        guard Timestamp.isInternetDateTime(text) else {
            throw SimpleAnalyticsPayloadError(
                field: "\(path).timestamp",
                problem: "\"\(text)\" is not an ISO 8601 date and time with a zone (YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM))")
        }
        return text
    }

    /// The device fields of `object` over `base`; each must be a string (or null/absent).
    private static func device(_ object: JSONObject, over base: Device, at prefix: String) throws(SimpleAnalyticsPayloadError)
        -> Device
    {
        var out = base
        for key in deviceFields {
            guard let value = object[key], !value.isNull else { continue }
            guard let text = value.stringValue else {
                throw SimpleAnalyticsPayloadError(field: prefix + key, problem: "is not a string")
            }
            switch key {
            case "device_id": out.deviceId = text
            case "app_name": out.appName = text
            case "app_version": out.appVersion = text
            case "platform": out.platform = text
            default: out.systemVersion = text
            }
        }
        return out
    }
}

/// Why a SimpleAnalytics payload was refused: the field and what is wrong with it.
package struct SimpleAnalyticsPayloadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The field's path, e.g. `items[2].timestamp` (`body` for the payload as a whole).
    package let field: String
    /// What is wrong with it.
    package let problem: String

    package init(field: String, problem: String) {
        self.field = field
        self.problem = problem
    }

    /// `field problem`, e.g. `items[0].timestamp is missing or not a string`.
    package var description: String { "\(field) \(problem)" }
}
