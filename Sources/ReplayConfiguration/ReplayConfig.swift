import Foundation
import JSONCore
import MetaRouterDelivery

/// The whole `mr-replay` configuration, typed. Load it with ``ConfigLoader``.
///
/// The write key is held privately: `description`, `debugDescription` and reflection show only
/// ``maskedWriteKey``. Read ``writeKey`` only to put it on the wire.
public struct ReplayConfig: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Where events go: the host and the write key, and TLS and proxy settings.
    public var ingestion: Ingestion
    /// How the engine sends: `ingestion.path`, `gzip`, `tracing`, `timeout_seconds` and
    /// `allow_insecure_http`, and the `batching`, `rate_limit` and `retry` sections, with the
    /// engine's own defaults. Its `host` and `writeKey` are empty here: a run sets them from
    /// ``ingestion`` (the configured host, or the embedded collector's address) when it starts.
    public var delivery: DeliveryConfiguration
    /// How events are completed before sending.
    public var enrichment: Enrichment
    /// Privacy rules applied to every event.
    public var privacy: Privacy
    /// How inputs are read: event age, changed files.
    public var inputs = Inputs()
    /// `reports:` section.
    public var reports = Reports()
    /// How the dead-letter file is kept: rotation by size.
    public var deadLetter = DeadLetterSettings()
    /// Directory for state: identity database, dead letters, checkpoints.
    public var stateDir: String
    /// The file this configuration was read from, if any.
    public var sourcePath: String?

    /// Fixed write key used with host `embedded` when none is configured.
    public static let embeddedWriteKey = "mr-replay-local"
    /// The `ingestion.host` that selects the embedded collector.
    package static let embeddedHost = "embedded"
    /// mr-replay's version: `--version`, the `User-Agent` and every event's
    /// `context.library.version`.
    package static let toolVersion = "0.1.0"

    /// The built-in defaults (host `embedded`), identical to the shipped `Config/replay.yaml`.
    public static var defaults: ReplayConfig {
        var delivery = DeliveryConfiguration(host: "", writeKey: "")
        delivery.userAgent = "mr-replay/\(Self.toolVersion)"
        return ReplayConfig(
            ingestion: Ingestion(), delivery: delivery, enrichment: Enrichment(), privacy: Privacy(), stateDir: ".mr-replay",
            sourcePath: nil)
    }

    /// The write key, to be sent as credentials. Never print it; use ``maskedWriteKey``.
    public var writeKey: String { ingestion.secretWriteKey.value }

    /// The write key reduced to its last 4 characters, e.g. `****c0de`.
    public var maskedWriteKey: String { ingestion.secretWriteKey.masked }

    /// Replaces the write key (tests).
    package mutating func setWriteKey(_ key: String) { ingestion.secretWriteKey = Secret(key) }

    /// A summary without secrets.
    public var description: String {
        "ReplayConfig(host: \(ingestion.host), path: \(delivery.path), writeKey: \(maskedWriteKey), "
            + "gzip: \(delivery.gzip), maxEvents: \(delivery.maxBatchEvents), concurrency: \(delivery.concurrency), "
            + "stateDir: \(stateDir))"
    }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// Reflection shows the masked key only.
    public var customMirror: Mirror { Mirror(self, children: ["description": description]) }

    /// `ingestion:` section.
    public struct Ingestion: Sendable {
        /// `embedded` (start an in-process collector) or a base URL such as `https://ingest.example.com`.
        public var host: String = "embedded"
        /// The write key (private; see ``ReplayConfig/writeKey``).
        var secretWriteKey = Secret("")
        /// TLS trust, client certificate and proxy for a remote host (`ingestion.tls`,
        /// `ingestion.proxy`, `ingestion.no_proxy` and the proxy environment variables, resolved
        /// for ``host`` when the configuration is loaded). Not used with the embedded collector.
        public var security = TransportSecurity()
        /// Whether the host is the in-process collector.
        public var isEmbedded: Bool { host == "embedded" }
        /// Creates the defaults.
        public init() {}
    }

    /// `enrichment:` section.
    public struct Enrichment: Sendable {
        /// What to do with an event without `timestamp`.
        public enum DefaultTimestamp: String, Sendable {
            /// Dead-letter it as `missing_timestamp`.
            case none
            /// Use the time of the replay.
            case now
        }
        /// What to do with an event without `timestamp`.
        public var defaultTimestamp: DefaultTimestamp = .none
        /// Context members filled in where the event lacks them.
        public var context = ContextDefaults()
        /// Which anonymousId a line without one gets.
        public var identity = IdentityRules()
        /// Creates the defaults.
        public init() {}
    }

    /// `enrichment.identity:` — the anonymousId of lines that have none, and the events that
    /// end carry-forward.
    public struct IdentityRules: Sendable, Equatable {
        /// A line with a `userId` and no `anonymousId`.
        public enum UserLines: String, Sendable {
            /// An anonymousId derived from the userId alone (``DerivedAnonymousId``): two userIds
            /// never share one, and the same userId always gets the same one.
            case derived
            /// The device anonymousId, as the SDK does on one device (every such user shares it).
            case device
        }
        /// A line with neither `anonymousId` nor `userId`.
        public enum DeviceLines: String, Sendable {
            /// The state directory's device anonymousId; carry-forward applies among these lines.
            case device
            /// Dead-lettered as `missing_identity`.
            case reject
        }
        /// `user_lines`.
        public var userLines = UserLines.derived
        /// `device_lines`.
        public var deviceLines = DeviceLines.device
        /// `logout_events`: names of `track` events that end carry-forward for their anonymousId
        /// (the event itself still carries the user; later events of that anonymousId carry no
        /// userId or groupId until it identifies again). Empty: none does.
        public var logoutEvents: [String] = []
        /// Creates the defaults.
        public init() {}
    }

    /// `inputs:` section.
    public struct Inputs: Sendable, Equatable {
        /// `max_event_age`: events older than this are not sent (`expired`).
        public var maxEventAge = EventAge.auto
        /// `on_changed`: what to do with an input that changed under its checkpoint.
        public var onChanged = OnChanged.restart
        /// `s3`: how `s3://` inputs are read.
        public var s3 = S3Inputs()
        /// `from`, `format`, `csv` and the top-level `transform`: what is done to each record
        /// before it is enriched.
        public var shaping = InputShaping()
        /// Creates the defaults.
        public init() {}
    }

    /// How old an event may be and still be sent.
    public enum EventAge: Sendable, Equatable, CustomStringConvertible {
        /// SDK snapshots: the SDK's 7 days, counted back from the time the queue was written
        /// (the file's modification time). NDJSON: no limit.
        case auto
        /// No limit for any input.
        case off
        /// This many seconds, for every input: counted back from the snapshot's modification
        /// time, or from the start of the run for NDJSON.
        case seconds(Int64)

        /// The SDK's limit.
        static let sdkDefault: Int64 = 7 * 86_400

        /// The limit for an input, in seconds, or nil for none: `auto` is the SDK's limit for a
        /// captured SDK queue (`isSnapshot`) and none for other inputs.
        package func limit(isSnapshot: Bool) -> Int64? {
            switch self {
            case .auto: isSnapshot ? Self.sdkDefault : nil
            case .off: nil
            case .seconds(let s): s
            }
        }

        /// `auto`, `off`, or the duration as written (`7d`, `36h`, `90m`, `3600s`).
        public var description: String {
            switch self {
            case .auto: "auto"
            case .off: "off"
            case .seconds(let s):
                s % 86_400 == 0 ? "\(s / 86_400)d" : s % 3600 == 0 ? "\(s / 3600)h" : s % 60 == 0 ? "\(s / 60)m" : "\(s)s"
            }
        }

        /// Parses `auto`, `off`, or a whole number with a unit `s`, `m`, `h` or `d`.
        public init?(parsing text: String) {
            let t = text.trimmingCharacters(in: .whitespaces).lowercased()
            if t == "auto" { self = .auto; return }
            if t == "off" || t == "none" { self = .off; return }
            let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
            // At most 100 years, like every duration in the config.
            guard let unit = t.last.flatMap({ units[$0] }), let n = Int64(t.dropLast()), n > 0, n <= 36_500 * 86_400 / unit
            else { return nil }
            self = .seconds(n * unit)
        }
    }

    /// What to do with an input that changed under its checkpoint (rewritten or rotated).
    public enum OnChanged: String, Sendable {
        /// Read it again from its start as a new file (a warning says so; events that carry their
        /// own or a stable messageId are deduplicated by the destination).
        case restart
        /// Stop before sending anything (exit 2).
        case refuse
    }

    /// `enrichment.context:` — values used only where the event has none.
    public struct ContextDefaults: Sendable {
        /// `context.app` members.
        public var app: JSONObject?
        /// `context.device` members.
        public var device: JSONObject?
        /// `context.os` members.
        public var os: JSONObject?
        /// `context.locale`.
        public var locale: String?
        /// `context.timezone`.
        public var timezone: String?
        /// Creates empty defaults.
        public init() {}
    }

    /// `privacy:` section.
    public struct Privacy: Sendable {
        /// Keys removed from `properties`, `traits` and `context.traits`; a dotted path
        /// (`properties.user.email`, `context.traits.phone`, `user.email`) removes a nested member
        /// (see ``DropPaths``).
        public var dropProperties: [String] = []
        /// Drop every event that carries no consent grant in `context.consent`.
        public var requireConsent = false
        /// Creates the defaults.
        public init() {}

        /// Why `entry` of ``dropProperties`` cannot be used, or nil.
        package static func dropPathProblem(_ entry: String) -> String? {
            let parts = entry.split(separator: ".", omittingEmptySubsequences: false)
            if parts.contains(where: \.isEmpty) { return "'\(entry)' has an empty part" }
            if parts.count == 1, ["properties", "traits", "context"].contains(entry) {
                return "'\(entry)' would remove a whole object; name a key inside it, e.g. '\(entry).email'"
            }
            return nil
        }
    }
}

/// A secret string whose descriptions never show it.
struct Secret: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    let value: String
    init(_ value: String) { self.value = value }
    /// `****` plus the last 4 characters (only `****` for keys of 4 characters or fewer).
    var masked: String {
        value.count > 4 ? "****" + String(value.suffix(4)) : "****"
    }
    var description: String { masked }
    var debugDescription: String { masked }
}

extension ReplayConfig {
    /// `reports:` section: the run history in `<state_dir>/reports/`.
    public struct Reports: Sendable, Equatable {
        /// `keep`: how many run reports the history keeps (the oldest are removed); 0 keeps none.
        public var keep = 30
        /// Creates the defaults.
        public init() {}
    }
}

extension ReplayConfig {
    /// `dead_letter:` section: how the dead-letter file is kept.
    public struct DeadLetterSettings: Sendable, Equatable {
        /// `max_bytes`: the dead-letter file is rotated (renamed to `dead-letter.N.ndjson`, N one
        /// more than the last) before a record would take it past this size; 0 = never rotated.
        public var maxBytes = 104_857_600
        /// Creates the defaults.
        public init() {}
    }
}

extension Duration {
    /// A duration of `seconds` (finite and not negative, as the loader checks), to the nanosecond.
    static func configSeconds(_ seconds: Double) -> Duration { .nanoseconds(Int64((seconds * 1e9).rounded())) }

    /// The duration in seconds, as a `*_seconds` key holds it.
    package var secondsValue: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }

    /// The duration in whole milliseconds, as a `*_ms` key holds it.
    package var millisecondsValue: Int { Int(components.seconds) * 1000 + Int(components.attoseconds / 1_000_000_000_000_000) }
}
