import Foundation
import MetaRouter

/// Loads a ``ReplayConfig`` from a YAML file.
///
/// Unknown keys are errors (with a "did you mean" suggestion), every error names the file,
/// line and column, and values may use `${ENV_VAR}` and `${ENV_VAR:-default}`.
public enum ConfigLoader {
    /// Only `state_dir` (for `status`, which needs nothing else): read leniently, so a config
    /// that another command would refuse, or whose key is not at hand, still tells where the
    /// state is. Missing or unreadable file, or no `state_dir`: the default.
    public static func stateDirectory(path: String?, environment: [String: String]) throws -> String {
        let fallback = ReplayConfig.defaults.stateDir
        guard let path else { return fallback }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw ConfigError(file: path, line: 0, column: 0, message: "cannot read the configuration file")
        }
        guard let root = try YAMLReader.parse(text, file: path), case .mapping(let pairs, _) = root else { return fallback }
        let r = ConfigReader(file: path, environment: environment)
        for (key, value) in pairs where key.scalarText == "state_dir" {
            let dir = try r.string(value, "state_dir")
            return dir.isEmpty ? fallback : dir
        }
        return fallback
    }

    /// Upper bounds for durations, far above any sensible value, that keep the engine's clock
    /// arithmetic from overflowing (a huge `timeout_seconds` crashed the conversion to Int64).
    enum Limits {
        /// 100 years, in seconds.
        static let seconds = 100 * 366 * 86_400.0
        /// 100 years, in milliseconds.
        static let milliseconds = 100 * 366 * 86_400_000
    }

    /// Reads and checks the configuration at `path`, expanding variables from `environment`.
    /// `requireWriteKey: false` accepts a remote host without a key (and does not read
    /// `write_key_file`), for commands that never send (`validate`); the key is then empty.
    public static func load(path: String, environment: [String: String], requireWriteKey: Bool = true) throws -> ReplayConfig {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError(file: path, line: 0, column: 0, message: "cannot read the configuration file")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigError(file: path, line: 0, column: 0, message: "the configuration file is not valid UTF-8")
        }
        let baseDirectory = (path as NSString).deletingLastPathComponent
        var config = try load(
            text: text, file: path, environment: environment, baseDirectory: baseDirectory, requireWriteKey: requireWriteKey)
        config.sourcePath = path
        return config
    }

    /// Parses configuration `text`; `file` labels errors; relative `write_key_file` paths are
    /// resolved against `baseDirectory` (the current directory when empty).
    public static func load(
        text: String, file: String, environment: [String: String], baseDirectory: String = "", requireWriteKey: Bool = true
    ) throws(ConfigError) -> ReplayConfig {
        var config = ReplayConfig.defaults
        guard let root = try YAMLReader.parse(text, file: file) else {
            try finish(&config, writeKey: nil, keyNode: nil, file: file, requireWriteKey: requireWriteKey)
            return config
        }
        let r = ConfigReader(file: file, environment: environment)
        let top = try r.members(
            root, section: "",
            allowed: ["ingestion", "batching", "rate_limit", "retry", "enrichment", "privacy", "inputs", "state_dir"])
        var writeKey: String?
        var keyNode: YAMLNode?
        if let (_, node) = top["ingestion"] {
            let m = try r.members(
                node, section: "ingestion",
                allowed: ["host", "write_key", "write_key_file", "path", "gzip", "tracing", "timeout_seconds", "allow_insecure_http"])
            if let v = m["host"]?.value { config.ingestion.host = try r.string(v, "ingestion.host"); keyNode = keyNode ?? v }
            if let v = m["path"]?.value { config.ingestion.path = try r.string(v, "ingestion.path") }
            if let v = m["gzip"]?.value { config.ingestion.gzip = try r.bool(v, "ingestion.gzip") }
            if let v = m["tracing"]?.value { config.ingestion.tracing = try r.bool(v, "ingestion.tracing") }
            if let v = m["timeout_seconds"]?.value {
                config.ingestion.timeoutSeconds = try r.double(v, "ingestion.timeout_seconds", min: 0.001, max: Limits.seconds)
            }
            if let v = m["allow_insecure_http"]?.value {
                config.ingestion.allowInsecureHTTP = try r.bool(v, "ingestion.allow_insecure_http")
            }
            if let v = m["write_key"]?.value {
                let key = try r.string(v, "ingestion.write_key")
                if !key.isEmpty { writeKey = key }
                keyNode = v
            }
            if let v = m["write_key_file"]?.value, writeKey == nil, requireWriteKey {
                var keyPath = try r.string(v, "ingestion.write_key_file")
                if !keyPath.isEmpty {
                    if !keyPath.hasPrefix("/"), !baseDirectory.isEmpty { keyPath = baseDirectory + "/" + keyPath }
                    guard let data = FileManager.default.contents(atPath: keyPath),
                        let text = String(data: data, encoding: .utf8)
                    else { throw r.error(v, "cannot read 'ingestion.write_key_file' (\(keyPath))") }
                    let key = text.trimmingCharacters(in: .whitespacesAndNewlines)
                    guard !key.isEmpty else { throw r.error(v, "'ingestion.write_key_file' (\(keyPath)) is empty") }
                    writeKey = key
                }
                keyNode = v
            }
            try checkHost(config.ingestion, node: m["host"]?.value ?? node, r)
            if !config.ingestion.path.hasPrefix("/") {
                throw r.error(m["path"]?.value ?? node, "'ingestion.path' must start with '/'")
            }
        }
        if let (_, node) = top["batching"] {
            let m = try r.members(node, section: "batching", allowed: ["max_events", "max_bytes", "max_event_bytes", "concurrency"])
            if let v = m["max_events"]?.value {
                let range = DeliveryConfiguration.batchEventsRange
                config.batching.maxEvents = try r.int(v, "batching.max_events", min: range.lowerBound, max: range.upperBound)
            }
            if let v = m["max_bytes"]?.value { config.batching.maxBytes = try r.int(v, "batching.max_bytes", min: 64) }
            if let v = m["max_event_bytes"]?.value {
                config.batching.maxEventBytes = try r.int(v, "batching.max_event_bytes", min: 16)
            }
            if let v = m["concurrency"]?.value {
                let range = DeliveryConfiguration.concurrencyRange
                config.batching.concurrency = try r.int(v, "batching.concurrency", min: range.lowerBound, max: range.upperBound)
            }
            let smallest = DeliveryConfiguration.smallestBatchBytes(forEventsOf: config.batching.maxEventBytes)
            if config.batching.maxBytes < smallest {
                throw r.error(
                    m["max_bytes"]?.value ?? m["max_event_bytes"]?.value ?? node,
                    "'batching.max_bytes' must hold one event of 'batching.max_event_bytes' with the request envelope "
                        + "(at least \(smallest) for max_event_bytes \(config.batching.maxEventBytes))")
            }
        }
        if let (_, node) = top["rate_limit"] {
            let m = try r.members(node, section: "rate_limit", allowed: ["events_per_second", "requests_per_second"])
            if let v = m["events_per_second"]?.value {
                config.rateLimit.eventsPerSecond = try r.double(v, "rate_limit.events_per_second", min: 0)
            }
            if let v = m["requests_per_second"]?.value {
                config.rateLimit.requestsPerSecond = try r.double(v, "rate_limit.requests_per_second", min: 0)
            }
        }
        if let (_, node) = top["retry"] {
            let m = try r.members(node, section: "retry", allowed: ["max_attempts", "max_elapsed_seconds", "min_wait_ms", "circuit_breaker"])
            if let v = m["max_attempts"]?.value { config.retry.maxAttempts = try r.int(v, "retry.max_attempts", min: 1) }
            if let v = m["min_wait_ms"]?.value {
                config.retry.minWaitMs = try r.int(v, "retry.min_wait_ms", min: 0, max: Limits.milliseconds)
            }
            if let v = m["max_elapsed_seconds"]?.value {
                config.retry.maxElapsedSeconds = try r.double(v, "retry.max_elapsed_seconds", min: 0.001, max: Limits.seconds)
            }
            if let v = m["circuit_breaker"]?.value {
                let s = "retry.circuit_breaker"
                let b = try r.members(v, section: s, allowed: ["failure_threshold", "cooldown_ms", "max_cooldown_ms", "jitter"])
                var cb = config.retry.circuitBreaker
                if let x = b["failure_threshold"]?.value { cb.failureThreshold = try r.int(x, "\(s).failure_threshold", min: 1) }
                if let x = b["cooldown_ms"]?.value { cb.cooldownMs = try r.int(x, "\(s).cooldown_ms", min: 0, max: Limits.milliseconds) }
                if let x = b["max_cooldown_ms"]?.value {
                    cb.maxCooldownMs = try r.int(x, "\(s).max_cooldown_ms", min: 0, max: Limits.milliseconds)
                }
                if let x = b["jitter"]?.value {
                    cb.jitter = try r.double(x, "\(s).jitter", min: -.infinity)
                    guard cb.jitter >= 0, cb.jitter < 1 else { throw r.error(x, "'\(s).jitter' must be at least 0 and below 1") }
                }
                if cb.maxCooldownMs < cb.cooldownMs {
                    throw r.error(b["max_cooldown_ms"]?.value ?? v, "'\(s).max_cooldown_ms' must be at least 'cooldown_ms'")
                }
                config.retry.circuitBreaker = cb
            }
        }
        if let (_, node) = top["enrichment"] {
            let m = try r.members(node, section: "enrichment", allowed: ["default_timestamp", "context", "identity"])
            if let v = m["identity"]?.value { config.enrichment.identity = try identityRules(v, r) }
            if let v = m["default_timestamp"]?.value {
                let text = try r.string(v, "enrichment.default_timestamp")
                guard let d = ReplayConfig.Enrichment.DefaultTimestamp(rawValue: text) else {
                    throw r.error(v, "'enrichment.default_timestamp' must be 'none' or 'now'")
                }
                config.enrichment.defaultTimestamp = d
            }
            if let v = m["context"]?.value {
                let s = "enrichment.context"
                let c = try r.members(v, section: s, allowed: ["app", "device", "os", "locale", "timezone"])
                var ctx = ReplayConfig.ContextDefaults()
                if let x = c["app"]?.value { ctx.app = try r.jsonObject(x, "\(s).app") }
                if let x = c["device"]?.value { ctx.device = try r.jsonObject(x, "\(s).device") }
                if let x = c["os"]?.value { ctx.os = try r.jsonObject(x, "\(s).os") }
                if let x = c["locale"]?.value { ctx.locale = try r.string(x, "\(s).locale") }
                if let x = c["timezone"]?.value { ctx.timezone = try r.string(x, "\(s).timezone") }
                config.enrichment.context = ctx
            }
        }
        if let (_, node) = top["privacy"] {
            let m = try r.members(node, section: "privacy", allowed: ["drop_properties", "require_consent"])
            if let v = m["drop_properties"]?.value {
                config.privacy.dropProperties = try r.stringList(v, "privacy.drop_properties")
                if let bad = config.privacy.dropProperties.first(where: { DropPaths.problem($0) != nil }) {
                    throw r.error(v, "'privacy.drop_properties': \(DropPaths.problem(bad)!)")
                }
            }
            if let v = m["require_consent"]?.value { config.privacy.requireConsent = try r.bool(v, "privacy.require_consent") }
        }
        if let (_, node) = top["inputs"] {
            let m = try r.members(node, section: "inputs", allowed: ["max_event_age", "on_changed"])
            if let v = m["max_event_age"]?.value {
                guard let age = ReplayConfig.EventAge(parsing: try r.string(v, "inputs.max_event_age")) else {
                    throw r.error(v, "'inputs.max_event_age' must be 'auto', 'off', or a duration such as 7d, 36h, 90m")
                }
                config.inputs.maxEventAge = age
            }
            if let v = m["on_changed"]?.value {
                guard let mode = ReplayConfig.OnChanged(rawValue: try r.string(v, "inputs.on_changed")) else {
                    throw r.error(v, "'inputs.on_changed' must be 'restart' or 'refuse'")
                }
                config.inputs.onChanged = mode
            }
        }
        if let (_, node) = top["state_dir"] {
            config.stateDir = try r.string(node, "state_dir")
            if config.stateDir.isEmpty { throw r.error(node, "'state_dir' must not be empty") }
        }
        try finish(&config, writeKey: writeKey, keyNode: keyNode ?? root, file: file, requireWriteKey: requireWriteKey)
        return config
    }

    private static func identityRules(_ node: YAMLNode, _ r: ConfigReader) throws(ConfigError) -> ReplayConfig.IdentityRules {
        let s = "enrichment.identity"
        let m = try r.members(node, section: s, allowed: ["user_lines", "device_lines"])
        var rules = ReplayConfig.IdentityRules()
        if let v = m["user_lines"]?.value {
            guard let x = ReplayConfig.IdentityRules.UserLines(rawValue: try r.string(v, "\(s).user_lines")) else {
                throw r.error(v, "'\(s).user_lines' must be 'derived' or 'device'")
            }
            rules.userLines = x
        }
        if let v = m["device_lines"]?.value {
            guard let x = ReplayConfig.IdentityRules.DeviceLines(rawValue: try r.string(v, "\(s).device_lines")) else {
                throw r.error(v, "'\(s).device_lines' must be 'device' or 'reject'")
            }
            rules.deviceLines = x
        }
        return rules
    }

    private static func finish(
        _ config: inout ReplayConfig, writeKey: String?, keyNode: YAMLNode?, file: String, requireWriteKey: Bool
    ) throws(ConfigError) {
        if let writeKey {
            config.ingestion.secretWriteKey = Secret(writeKey)
        } else if config.ingestion.isEmbedded {
            config.ingestion.secretWriteKey = Secret(ReplayConfig.embeddedWriteKey)
        } else if requireWriteKey {
            throw ConfigError(
                file: file, line: keyNode?.mark.line ?? 0, column: keyNode?.mark.column ?? 0,
                message: "no write key: set 'ingestion.write_key' (e.g. ${MR_WRITE_KEY}) or 'ingestion.write_key_file'")
        }
    }

    private static func checkHost(_ ingestion: ReplayConfig.Ingestion, node: YAMLNode, _ r: ConfigReader) throws(ConfigError) {
        let host = ingestion.host
        if ingestion.isEmbedded { return }
        guard let url = URL(string: host), let scheme = url.scheme?.lowercased(), let name = url.host, !name.isEmpty else {
            throw r.error(node, "'ingestion.host' must be 'embedded' or a URL such as https://ingest.example.com")
        }
        switch scheme {
        case "https": return
        case "http":
            let loopback = name == "localhost" || name == "127.0.0.1" || name == "::1" || name == "[::1]"
            if !loopback && !ingestion.allowInsecureHTTP {
                throw r.error(node, "'ingestion.host' uses plain http to a remote host; use https or set 'ingestion.allow_insecure_http: true'")
            }
        default:
            throw r.error(node, "'ingestion.host' must use http or https")
        }
    }
}
