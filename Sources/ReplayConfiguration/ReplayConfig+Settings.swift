import Foundation
import MetaRouterDelivery

extension ReplayConfig {
    /// The settings a report records. The write key appears only masked.
    package var reportSettings: [String: String] {
        [
            "config": sourcePath ?? "<defaults>",
            "ingestion.host": ingestion.host,
            "ingestion.path": delivery.path,
            "ingestion.write_key": maskedWriteKey,
            "ingestion.gzip": String(delivery.gzip),
            "ingestion.tracing": String(delivery.tracing),
            "ingestion.timeout_seconds": String(delivery.requestTimeout.secondsValue),
            "batching.max_events": String(delivery.maxBatchEvents),
            "batching.max_bytes": String(delivery.maxBatchBytes),
            "batching.max_event_bytes": String(delivery.maxEventBytes),
            "batching.concurrency": String(delivery.concurrency),
            "rate_limit.events_per_second": String(delivery.eventsPerSecond),
            "rate_limit.requests_per_second": String(delivery.requestsPerSecond),
            "retry.max_attempts": String(delivery.maxAttempts),
            "retry.max_elapsed_seconds": String(delivery.maxElapsed.secondsValue),
            "retry.min_wait_ms": String(delivery.retryFloor.millisecondsValue),
            "retry.circuit_breaker.failure_threshold": String(delivery.breaker.failureThreshold),
            "retry.circuit_breaker.cooldown_ms": String(delivery.breaker.cooldown.millisecondsValue),
            "retry.circuit_breaker.max_cooldown_ms": String(delivery.breaker.maxCooldown.millisecondsValue),
            "retry.circuit_breaker.jitter": String(delivery.breaker.jitter),
            "enrichment.identity.user_lines": enrichment.identity.userLines.rawValue,
            "enrichment.identity.device_lines": enrichment.identity.deviceLines.rawValue,
            "privacy.require_consent": String(privacy.requireConsent),
            "inputs.max_event_age": inputs.maxEventAge.description,
            "inputs.on_changed": inputs.onChanged.rawValue,
            "reports.keep": String(reports.keep),
            "state_dir": stateDir,
        ]
    }

    /// The engine configuration for sending to `host`: ``delivery`` with the host and the write
    /// key (a loaded config always passes the engine's checks: `ConfigLoader` applies the same
    /// limits, with file and line).
    package func deliveryConfiguration(host: String) throws -> DeliveryConfiguration {
        var d = delivery
        d.host = host
        d.writeKey = writeKey
        try d.validate()
        return d
    }
}
