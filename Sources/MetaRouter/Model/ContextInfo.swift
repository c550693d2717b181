import JSONCore

/// The static parts of an event's `context` that a sender adds.
///
/// `library` is always set. `app`, `device`, `os`, `locale` and `timezone` are added when
/// configured, and only fill what an event does not already carry: the event's own values win.
public struct ContextInfo: Sendable, Equatable {
    /// The library name, for example `mr-replay`.
    public var libraryName: String
    /// The library version.
    public var libraryVersion: String
    /// `context.app`, for example `{name, version, build}`.
    public var app: JSONObject?
    /// `context.device`, for example `{manufacturer, model, type}`.
    public var device: JSONObject?
    /// `context.os`, for example `{name, version}`.
    public var os: JSONObject?
    /// `context.locale`, for example `en-US`.
    public var locale: String?
    /// `context.timezone`, for example `Europe/Berlin`.
    public var timezone: String?

    /// Creates context information.
    public init(
        libraryName: String = "metarouter-swift", libraryVersion: String = MetaRouterVersion.current,
        app: JSONObject? = nil, device: JSONObject? = nil, os: JSONObject? = nil,
        locale: String? = nil, timezone: String? = nil
    ) {
        self.libraryName = libraryName
        self.libraryVersion = libraryVersion
        self.app = app
        self.device = device
        self.os = os
        self.locale = locale
        self.timezone = timezone
    }

    /// The `context.library` object.
    public var library: JSONObject {
        JSONObject([(key: "name", value: .string(libraryName)), (key: "version", value: .string(libraryVersion))])
    }

    /// Merges this information into an event's `context`: sets `library`, fills missing members
    /// (and missing keys inside `app`, `device` and `os`), and sets or removes
    /// `device.advertisingId` as given.
    public func merged(into existing: JSONObject?, advertisingId: String?? = .none) -> JSONObject {
        var context = existing ?? JSONObject()
        context["library"] = .object(library)
        for (key, value) in [("app", app), ("device", device), ("os", os)] {
            guard let value else { continue }
            context[key] = .object(Self.fill(context[key]?.objectValue, from: value))
        }
        if let locale, context["locale"] == nil { context["locale"] = .string(locale) }
        if let timezone, context["timezone"] == nil { context["timezone"] = .string(timezone) }
        if case .some(let id) = advertisingId {
            var device = context["device"]?.objectValue ?? JSONObject()
            device["advertisingId"] = id.map { .string($0) }
            if device.isEmpty { context["device"] = nil } else { context["device"] = .object(device) }
        }
        return context
    }

    static func fill(_ target: JSONObject?, from defaults: JSONObject) -> JSONObject {
        guard var target else { return defaults }
        for (key, value) in defaults where target[key] == nil { target[key] = value }
        return target
    }
}

/// This package's version.
public enum MetaRouterVersion {
    /// The version string reported in `context.library.version`.
    public static let current = "0.1.0"
}
