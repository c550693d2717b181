import Foundation
import JSONCore
import ReplayConfiguration
import TestSupport
import Testing

@Suite final class ConfigTests {
    let dir: String
    init() throws { dir = try makeTempDir() }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    static var repoRoot: String { packageRoot }

    @Test func shippedDefaultConfigLoadsWithoutSecret() throws {
        let c = try ConfigLoader.load(path: Self.repoRoot + "/Config/replay.yaml", environment: [:])
        #expect(c.ingestion.isEmbedded)
        #expect(c.writeKey == ReplayConfig.embeddedWriteKey)
        #expect(c.delivery.path == "/v1/batch")
        #expect(c.delivery.maxBatchEvents == 100)
        #expect(c.delivery.maxBatchBytes == 500_000)
        #expect(c.delivery.maxEventBytes == 32_768)
        #expect(c.delivery.concurrency == 4)
        #expect(c.delivery.maxAttempts == 10)
        #expect(c.delivery.breaker.failureThreshold == 3)
        #expect(c.delivery.breaker.cooldown == .seconds(10))
        #expect(c.delivery.breaker.maxCooldown == .seconds(120))
        #expect(c.delivery.breaker.jitter == 0.2)
        #expect(c.stateDir == ".mr-replay")
        #expect(c.enrichment.defaultTimestamp == .none)
    }

    /// The engine settings live in one `DeliveryConfiguration`; the report still names them by
    /// their YAML keys, with the values as the file writes them.
    @Test func reportSettingsKeepTheirKeysAndValues() throws {
        let defaults = ReplayConfig.defaults.reportSettings
        let expected = [
            "ingestion.path": "/v1/batch", "ingestion.gzip": "false", "ingestion.tracing": "false",
            "ingestion.timeout_seconds": "15.0", "batching.max_events": "100", "batching.max_bytes": "500000",
            "batching.max_event_bytes": "32768", "batching.concurrency": "4", "rate_limit.events_per_second": "0.0",
            "rate_limit.requests_per_second": "0.0", "retry.max_attempts": "10", "retry.max_elapsed_seconds": "3600.0",
            "retry.min_wait_ms": "1000", "retry.circuit_breaker.failure_threshold": "3",
            "retry.circuit_breaker.cooldown_ms": "10000", "retry.circuit_breaker.max_cooldown_ms": "120000",
            "retry.circuit_breaker.jitter": "0.2",
        ]
        for (key, value) in expected { #expect(defaults[key] == value, "\(key)") }
        let yaml = """
            ingestion: { host: embedded, timeout_seconds: 7.5, gzip: true }
            retry: { max_elapsed_seconds: 0.25, min_wait_ms: 250, circuit_breaker: { cooldown_ms: 1500, max_cooldown_ms: 3001 } }
            rate_limit: { events_per_second: 12.5 }
            """
        let c = try ConfigLoader.load(text: yaml, file: "r.yaml", environment: [:]).reportSettings
        #expect(c["ingestion.timeout_seconds"] == "7.5" && c["ingestion.gzip"] == "true")
        #expect(c["retry.max_elapsed_seconds"] == "0.25" && c["retry.min_wait_ms"] == "250")
        #expect(c["retry.circuit_breaker.cooldown_ms"] == "1500" && c["retry.circuit_breaker.max_cooldown_ms"] == "3001")
        #expect(c["rate_limit.events_per_second"] == "12.5")
    }

    @Test func productionExampleLoadsWithEnvironment() throws {
        let c = try ConfigLoader.load(
            path: Self.repoRoot + "/Config/production.example.yaml", environment: ["MR_WRITE_KEY": "prod-secret-9876"])
        #expect(c.ingestion.host == "https://ingest.example.com")
        #expect(c.writeKey == "prod-secret-9876")
        #expect(c.maskedWriteKey == "****9876")
        #expect(c.privacy.dropProperties == ["email", "phone", "password", "context.traits.address"])
        #expect(throws: (any Error).self) {
            try ConfigLoader.load(path: Self.repoRoot + "/Config/production.example.yaml", environment: [:])
        }
    }

    @Test func unknownKeyNamesLineColumnAndSuggestion() throws {
        let yaml = "ingestion:\n  host: embedded\nbatching:\n  max_event: 10\n"
        let err = try #require(throws: ConfigError.self) { try ConfigLoader.load(text: yaml, file: "r.yaml", environment: [:]) }
        #expect(err.line == 4)
        #expect(err.column == 3)
        #expect(err.description.hasPrefix("r.yaml:4:3: unknown key 'batching.max_event'"), "\(err.description)")
        #expect(err.description.contains("did you mean 'batching.max_events'"), "\(err.description)")
    }

    @Test func unknownTopLevelKeySuggestion() throws {
        let err = try #require(throws: ConfigError.self) { try ConfigLoader.load(text: "stat_dir: x\n", file: "r.yaml", environment: [:]) }
        #expect(err.description == "r.yaml:1:1: unknown key 'stat_dir'; did you mean 'state_dir'?")
    }

    @Test func badValueNamesPosition() throws {
        let yaml = "batching:\n  max_events: lots\n"
        let err = try #require(throws: ConfigError.self) { try ConfigLoader.load(text: yaml, file: "r.yaml", environment: [:]) }
        let position = [err.line, err.column]
        #expect(position == [2, 15])
        #expect(err.message.contains("whole number"))
        let jitter = try #require(throws: ConfigError.self) {
            try ConfigLoader.load(text: "retry:\n  circuit_breaker: { jitter: 2 }\n", file: "r", environment: [:])
        }
        #expect(jitter.line == 2)
    }

    /// Every value the delivery engine would refuse (or that would overflow its clock) is
    /// refused when the file is loaded, with its line and key.
    @Test(arguments: [
        ("ingestion", "timeout_seconds: 1e17", "ingestion.timeout_seconds"),
        ("retry", "max_elapsed_seconds: 1e300", "retry.max_elapsed_seconds"),
        ("retry", "max_elapsed_seconds: 0", "retry.max_elapsed_seconds"),
        ("batching", "max_events: 5000", "batching.max_events"),
        ("batching", "concurrency: 100000", "batching.concurrency"),
        ("batching", "max_event_bytes: 500000", "batching.max_bytes"),
        ("batching", "max_bytes: 100", "batching.max_bytes"),
        ("retry", "circuit_breaker: { jitter: 1 }", "retry.circuit_breaker.jitter"),
        ("retry", "circuit_breaker: { jitter: 1.5 }", "retry.circuit_breaker.jitter"),
        ("retry", "circuit_breaker: { cooldown_ms: 99999999999999, max_cooldown_ms: 99999999999999 }", "retry.circuit_breaker.cooldown_ms"),
    ])
    func engineLimitsAreCheckedWhereTheValueIsWritten(section: String, setting: String, key: String) throws {
        let err = try #require(throws: ConfigError.self) {
            try ConfigLoader.load(text: "\(section):\n  \(setting)\n", file: "r.yaml", environment: [:])
        }
        #expect(err.line == 2, "\(setting)")
        #expect(err.message.contains("'\(key)'"), "\(setting): \(err.message)")
    }

    /// The engine's limits themselves load and pass the engine's checks.
    @Test func engineLimitsThemselvesLoad() throws {
        let limits = """
            ingestion: { timeout_seconds: 86400 }
            batching: { max_events: 2500, concurrency: 256, max_event_bytes: 32768, max_bytes: 32816 }
            retry: { max_elapsed_seconds: 31622400, min_wait_ms: 86400000, circuit_breaker: { jitter: 0.999, max_cooldown_ms: 86400000 } }
            """
        let config = try ConfigLoader.load(text: limits, file: "r.yaml", environment: [:])
        #expect(throws: Never.self) { try config.deliveryConfiguration(host: "http://127.0.0.1:9") }
        let forever = "retry: { max_elapsed_seconds: 1000000000, circuit_breaker: { max_cooldown_ms: 31536000000 } }\n"
        #expect(throws: Never.self, "generous values still load") {
            try ConfigLoader.load(text: forever, file: "r.yaml", environment: [:])
        }
    }

    /// `status` reads only state_dir: a config no other command accepts, or whose key is not at
    /// hand, still tells where the state is.
    @Test func stateDirectoryIsReadLeniently() throws {
        let text = """
            ingestion: { host: https://x.example, write_key_file: /nonexistent/key }
            retry: { max_elapsed_seconds: 1e300 }
            state_dir: ${STATE:-fallback}
            """
        try writeFile(dir + "/c.yaml", text)
        #expect(throws: (any Error).self) { try ConfigLoader.load(path: self.dir + "/c.yaml", environment: [:]) }
        #expect(try ConfigLoader.stateDirectory(path: dir + "/c.yaml", environment: ["STATE": "/srv/st"]) == "/srv/st")
        #expect(try ConfigLoader.stateDirectory(path: dir + "/c.yaml", environment: [:]) == "fallback")
        #expect(try ConfigLoader.stateDirectory(path: nil, environment: [:]) == ".mr-replay")
        // validate needs no key either, even from a key file it cannot read.
        let noKey = try ConfigLoader.load(
            text: "ingestion: { host: https://x.example, write_key_file: /nonexistent/key }\n", file: "r", environment: [:],
            requireWriteKey: false)
        #expect(noKey.ingestion.host == "https://x.example")
    }

    @Test func aRootThatIsNotAMappingSaysWhatIsExpected() throws {
        let err = try #require(throws: ConfigError.self) { try ConfigLoader.load(text: "hello\n", file: "r.yaml", environment: [:]) }
        #expect(err.line == 1)
        #expect(err.message.hasPrefix("the configuration must be a mapping of sections (ingestion, batching"), "\(err.message)")
    }

    @Test func yamlSyntaxErrorHasPosition() throws {
        let yaml = "ingestion:\n  host: [unclosed\n  path: /x\n"
        let err = try #require(throws: ConfigError.self) { try ConfigLoader.load(text: yaml, file: "bad.yaml", environment: [:]) }
        #expect(err.line > 1)
        #expect(err.column > 0)
        #expect(err.description.hasPrefix("bad.yaml:\(err.line):\(err.column): YAML syntax error"))
    }

    @Test func environmentInterpolation() throws {
        let yaml = """
            ingestion:
              host: ${HOST:-https://fallback.example.com}
              write_key: key-${KEY_PART}-end
              timeout_seconds: ${TIMEOUT:-7}
            state_dir: ${STATE:-/tmp/s}/x$$y
            """
        let c = try ConfigLoader.load(text: yaml, file: "r", environment: ["KEY_PART": "abc", "STATE": ""])
        #expect(c.ingestion.host == "https://fallback.example.com")
        #expect(c.writeKey == "key-abc-end")
        #expect(c.delivery.requestTimeout == .seconds(7))
        #expect(c.stateDir == "/tmp/s/x$y")
        let c2 = try ConfigLoader.load(text: yaml, file: "r", environment: ["HOST": "https://h.example", "KEY_PART": "z", "TIMEOUT": "3"])
        #expect(c2.ingestion.host == "https://h.example")
        #expect(c2.delivery.requestTimeout == .seconds(3))
        let err = try #require(throws: ConfigError.self) { try ConfigLoader.load(text: "state_dir: ${OOPS\n", file: "r", environment: [:]) }
        #expect(err.line == 1)
    }

    /// A config whose write key comes from a key file in the test's directory.
    private func keyFileConfig() throws -> ReplayConfig {
        try writeFile(dir + "/key", "  secret-key-WXYZ\n")
        let yaml = "ingestion:\n  host: https://ingest.example.com\n  write_key_file: key\n"
        try writeFile(dir + "/r.yaml", yaml)
        return try ConfigLoader.load(path: dir + "/r.yaml", environment: [:])
    }

    @Test func writeKeyFileAndMasking() throws {
        let c = try keyFileConfig()
        #expect(c.writeKey == "secret-key-WXYZ")
        #expect(c.maskedWriteKey == "****WXYZ")
    }

    /// The ways a config can be printed.
    enum Rendering: String, CaseIterable, Sendable {
        case description, debugDescription, describing, reflecting, ingestion

        func text(_ c: ReplayConfig) -> String {
            switch self {
            case .description: c.description
            case .debugDescription: c.debugDescription
            case .describing: String(describing: c)
            case .reflecting: String(reflecting: c)
            case .ingestion: "\(c.ingestion)"
            }
        }
    }

    @Test(arguments: Rendering.allCases)
    func writeKeyFromAFileIsNotPrinted(rendering: Rendering) throws {
        let text = rendering.text(try keyFileConfig())
        #expect(!text.contains("secret-key"), "\(text)")
    }

    @Test func remoteHostNeedsKeyAndHTTPS() throws {
        let noKey = try #require(throws: ConfigError.self) {
            try ConfigLoader.load(text: "ingestion:\n  host: https://x.example\n", file: "r", environment: [:])
        }
        #expect(noKey.message.contains("no write key"))
        let insecure = "ingestion:\n  host: http://x.example\n  write_key: k\n"
        let http = try #require(throws: ConfigError.self) { try ConfigLoader.load(text: insecure, file: "r", environment: [:]) }
        #expect(http.line == 2)
        #expect(throws: Never.self) {
            try ConfigLoader.load(text: insecure + "  allow_insecure_http: true\n", file: "r", environment: [:])
        }
        #expect(throws: Never.self) {
            try ConfigLoader.load(text: "ingestion:\n  host: http://127.0.0.1:8080\n  write_key: k\n", file: "r", environment: [:])
        }
    }

    @Test func enrichmentAndPrivacySections() throws {
        let yaml = """
            enrichment:
              default_timestamp: now
              context:
                app: { name: demo, build: 42 }
                locale: de-DE
            privacy:
              drop_properties: [email, ssn]
            """
        let c = try ConfigLoader.load(text: yaml, file: "r", environment: [:])
        #expect(c.enrichment.defaultTimestamp == .now)
        #expect(c.enrichment.context.app?["build"] == .number(JSONNumber(42)))
        #expect(c.enrichment.context.app?["name"] == .string("demo"))
        #expect(c.enrichment.context.locale == "de-DE")
        #expect(c.privacy.dropProperties == ["email", "ssn"])
    }

    @Test func emptyFileGivesDefaults() throws {
        let c = try ConfigLoader.load(text: "", file: "r", environment: [:])
        #expect(c.writeKey == ReplayConfig.embeddedWriteKey)
        #expect(c.maskedWriteKey == "****ocal")
    }
}

@Suite struct WriteKeyTests {
    @Test func setWriteKeyIsMasked() {
        var c = ReplayConfig.defaults
        c.setWriteKey("abcdefgh1234")
        #expect(c.writeKey == "abcdefgh1234")
        #expect(c.maskedWriteKey == "****1234")
        #expect(!String(describing: c).contains("abcdefgh"))
        c.setWriteKey("abc")
        #expect(c.maskedWriteKey == "****")
    }
}
