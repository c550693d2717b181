import Foundation
@_spi(PerLine) import MetaRouterDelivery

/// One reader per top-level section of the configuration file.
extension ConfigLoader {
    /// What the `ingestion` section says about the write key: the key, and the node that an
    /// error about a missing key points at.
    struct WriteKeySource {
        var key: String?
        var node: YAMLNode?
    }

    /// Reads `ingestion`. `write_key_file` is read (relative to `baseDirectory`) only when
    /// `requireWriteKey` and no `write_key` is given; so are the TLS files (``readSecurity``).
    static func readIngestion(
        _ node: YAMLNode, into config: inout ReplayConfig, _ r: ConfigReader, baseDirectory: String, requireWriteKey: Bool
    ) throws(ConfigError) -> WriteKeySource {
        var writeKey: String?
        var keyNode: YAMLNode?
        let m = try r.members(
            node, section: "ingestion",
            allowed: [
                "host", "write_key", "write_key_file", "path", "gzip", "tracing", "timeout_seconds", "allow_insecure_http",
                "tls", "proxy", "no_proxy",
            ])
        if let v = m["host"]?.value { config.ingestion.host = try r.string(v, "ingestion.host"); keyNode = keyNode ?? v }
        if let v = m["path"]?.value { config.delivery.path = try r.string(v, "ingestion.path") }
        if let v = m["gzip"]?.value { config.delivery.gzip = try r.bool(v, "ingestion.gzip") }
        if let v = m["tracing"]?.value { config.delivery.tracing = try r.bool(v, "ingestion.tracing") }
        if let v = m["timeout_seconds"]?.value {
            config.delivery.requestTimeout = .configSeconds(
                try r.double(v, "ingestion.timeout_seconds", min: 0.001, max: Limits.seconds))
        }
        if let v = m["allow_insecure_http"]?.value {
            config.delivery.allowInsecureHTTP = try r.bool(v, "ingestion.allow_insecure_http")
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
        try checkHost(config.ingestion.host, allowInsecureHTTP: config.delivery.allowInsecureHTTP, node: m["host"]?.value ?? node, r)
        if !config.delivery.path.hasPrefix("/") {
            throw r.error(m["path"]?.value ?? node, "'ingestion.path' must start with '/'")
        }
        config.ingestion.security = try readSecurity(
            SecurityNodes(tls: m["tls"]?.value, proxy: m["proxy"]?.value, noProxy: m["no_proxy"]?.value, section: node),
            ingestion: config.ingestion, r, baseDirectory: baseDirectory, checkFiles: requireWriteKey)
        return WriteKeySource(key: writeKey, node: keyNode)
    }

    /// Reads `batching`.
    static func readBatching(_ node: YAMLNode, into config: inout ReplayConfig, _ r: ConfigReader) throws(ConfigError) {
        let m = try r.members(node, section: "batching", allowed: ["max_events", "max_bytes", "max_event_bytes", "concurrency"])
        if let v = m["max_events"]?.value {
            let range = DeliveryConfiguration.batchEventsRange
            config.delivery.maxBatchEvents = try r.int(v, "batching.max_events", min: range.lowerBound, max: range.upperBound)
        }
        if let v = m["max_bytes"]?.value { config.delivery.maxBatchBytes = try r.int(v, "batching.max_bytes", min: 64) }
        if let v = m["max_event_bytes"]?.value {
            config.delivery.maxEventBytes = try r.int(v, "batching.max_event_bytes", min: 16)
        }
        if let v = m["concurrency"]?.value {
            let range = DeliveryConfiguration.concurrencyRange
            config.delivery.concurrency = try r.int(v, "batching.concurrency", min: range.lowerBound, max: range.upperBound)
        }
        let smallest = DeliveryConfiguration.smallestBatchBytes(forEventsOf: config.delivery.maxEventBytes)
        if config.delivery.maxBatchBytes < smallest {
            throw r.error(
                m["max_bytes"]?.value ?? m["max_event_bytes"]?.value ?? node,
                "'batching.max_bytes' must hold one event of 'batching.max_event_bytes' with the request envelope "
                    + "(at least \(smallest) for max_event_bytes \(config.delivery.maxEventBytes))")
        }
    }

    /// Reads `rate_limit`.
    static func readRateLimit(_ node: YAMLNode, into config: inout ReplayConfig, _ r: ConfigReader) throws(ConfigError) {
        let m = try r.members(node, section: "rate_limit", allowed: ["events_per_second", "requests_per_second"])
        if let v = m["events_per_second"]?.value {
            config.delivery.eventsPerSecond = try r.double(v, "rate_limit.events_per_second", min: 0)
        }
        if let v = m["requests_per_second"]?.value {
            config.delivery.requestsPerSecond = try r.double(v, "rate_limit.requests_per_second", min: 0)
        }
    }

    /// Reads `retry`.
    static func readRetry(_ node: YAMLNode, into config: inout ReplayConfig, _ r: ConfigReader) throws(ConfigError) {
        let m = try r.members(node, section: "retry", allowed: ["max_attempts", "max_elapsed_seconds", "min_wait_ms", "circuit_breaker"])
        if let v = m["max_attempts"]?.value { config.delivery.maxAttempts = try r.int(v, "retry.max_attempts", min: 1) }
        if let v = m["min_wait_ms"]?.value {
            config.delivery.retryFloor = .milliseconds(try r.int(v, "retry.min_wait_ms", min: 0, max: Limits.milliseconds))
        }
        if let v = m["max_elapsed_seconds"]?.value {
            config.delivery.maxElapsed = .configSeconds(
                try r.double(v, "retry.max_elapsed_seconds", min: 0.001, max: Limits.seconds))
        }
        if let v = m["circuit_breaker"]?.value {
            let s = "retry.circuit_breaker"
            let b = try r.members(v, section: s, allowed: ["failure_threshold", "cooldown_ms", "max_cooldown_ms", "jitter"])
            var cb = config.delivery.breaker
            if let x = b["failure_threshold"]?.value { cb.failureThreshold = try r.int(x, "\(s).failure_threshold", min: 1) }
            if let x = b["cooldown_ms"]?.value {
                cb.cooldown = .milliseconds(try r.int(x, "\(s).cooldown_ms", min: 0, max: Limits.milliseconds))
            }
            if let x = b["max_cooldown_ms"]?.value {
                cb.maxCooldown = .milliseconds(try r.int(x, "\(s).max_cooldown_ms", min: 0, max: Limits.milliseconds))
            }
            if let x = b["jitter"]?.value {
                cb.jitter = try r.double(x, "\(s).jitter", min: -.infinity)
                guard cb.jitter >= 0, cb.jitter < 1 else { throw r.error(x, "'\(s).jitter' must be at least 0 and below 1") }
            }
            if cb.maxCooldown < cb.cooldown {
                throw r.error(b["max_cooldown_ms"]?.value ?? v, "'\(s).max_cooldown_ms' must be at least 'cooldown_ms'")
            }
            config.delivery.breaker = cb
        }
    }

    /// Reads `enrichment`.
    static func readEnrichment(_ node: YAMLNode, into config: inout ReplayConfig, _ r: ConfigReader) throws(ConfigError) {
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

    /// Reads `privacy`.
    static func readPrivacy(_ node: YAMLNode, into config: inout ReplayConfig, _ r: ConfigReader) throws(ConfigError) {
        let m = try r.members(node, section: "privacy", allowed: ["drop_properties", "require_consent"])
        if let v = m["drop_properties"]?.value {
            config.privacy.dropProperties = try r.stringList(v, "privacy.drop_properties")
            if let bad = config.privacy.dropProperties.first(where: { ReplayConfig.Privacy.dropPathProblem($0) != nil }) {
                throw r.error(v, "'privacy.drop_properties': \(ReplayConfig.Privacy.dropPathProblem(bad)!)")
            }
        }
        if let v = m["require_consent"]?.value { config.privacy.requireConsent = try r.bool(v, "privacy.require_consent") }
    }

    /// Reads `inputs`.
    static func readInputs(_ node: YAMLNode, into config: inout ReplayConfig, _ r: ConfigReader) throws(ConfigError) {
        let m = try r.members(node, section: "inputs", allowed: ["max_event_age", "on_changed", "s3", "from", "format", "csv"])
        if let v = m["s3"]?.value { try readS3(v, into: &config.inputs.s3, r) }
        try readShaping(m, into: &config.inputs.shaping, r)
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

}
