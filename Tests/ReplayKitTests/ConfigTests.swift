import Foundation
import XCTest
@testable import ReplayKit

final class ConfigTests: XCTestCase {
    var dir = ""
    override func setUpWithError() throws { dir = try makeTempDir() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    static var repoRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    func testShippedDefaultConfigLoadsWithoutSecret() throws {
        let c = try ConfigLoader.load(path: Self.repoRoot + "/Config/replay.yaml", environment: [:])
        XCTAssertTrue(c.ingestion.isEmbedded)
        XCTAssertEqual(c.writeKey, ReplayConfig.embeddedWriteKey)
        XCTAssertEqual(c.ingestion.path, "/v1/batch")
        XCTAssertEqual(c.batching.maxEvents, 100)
        XCTAssertEqual(c.batching.maxBytes, 500_000)
        XCTAssertEqual(c.batching.maxEventBytes, 32_768)
        XCTAssertEqual(c.batching.concurrency, 4)
        XCTAssertEqual(c.retry.maxAttempts, 10)
        XCTAssertEqual(c.retry.circuitBreaker.failureThreshold, 3)
        XCTAssertEqual(c.retry.circuitBreaker.cooldownMs, 10_000)
        XCTAssertEqual(c.retry.circuitBreaker.maxCooldownMs, 120_000)
        XCTAssertEqual(c.retry.circuitBreaker.jitter, 0.2)
        XCTAssertEqual(c.stateDir, ".mr-replay")
        XCTAssertEqual(c.enrichment.defaultTimestamp, .none)
    }

    func testProductionExampleLoadsWithEnvironment() throws {
        let c = try ConfigLoader.load(
            path: Self.repoRoot + "/Config/production.example.yaml", environment: ["MR_WRITE_KEY": "prod-secret-9876"])
        XCTAssertEqual(c.ingestion.host, "https://ingest.example.com")
        XCTAssertEqual(c.writeKey, "prod-secret-9876")
        XCTAssertEqual(c.maskedWriteKey, "****9876")
        XCTAssertEqual(c.privacy.dropProperties, ["email", "phone", "password", "context.traits.address"])
        XCTAssertThrowsError(try ConfigLoader.load(path: Self.repoRoot + "/Config/production.example.yaml", environment: [:]))
    }

    func testUnknownKeyNamesLineColumnAndSuggestion() {
        let yaml = "ingestion:\n  host: embedded\nbatching:\n  max_event: 10\n"
        XCTAssertThrowsError(try ConfigLoader.load(text: yaml, file: "r.yaml", environment: [:])) { e in
            let err = e as! ConfigError
            XCTAssertEqual(err.line, 4)
            XCTAssertEqual(err.column, 3)
            XCTAssertTrue(err.description.hasPrefix("r.yaml:4:3: unknown key 'batching.max_event'"), err.description)
            XCTAssertTrue(err.description.contains("did you mean 'batching.max_events'"), err.description)
        }
    }

    func testUnknownTopLevelKeySuggestion() {
        XCTAssertThrowsError(try ConfigLoader.load(text: "stat_dir: x\n", file: "r.yaml", environment: [:])) { e in
            XCTAssertEqual((e as! ConfigError).description, "r.yaml:1:1: unknown key 'stat_dir'; did you mean 'state_dir'?")
        }
    }

    func testBadValueNamesPosition() {
        let yaml = "batching:\n  max_events: lots\n"
        XCTAssertThrowsError(try ConfigLoader.load(text: yaml, file: "r.yaml", environment: [:])) { e in
            let err = e as! ConfigError
            XCTAssertEqual([err.line, err.column], [2, 15])
            XCTAssertTrue(err.message.contains("whole number"))
        }
        XCTAssertThrowsError(try ConfigLoader.load(text: "retry:\n  circuit_breaker: { jitter: 2 }\n", file: "r", environment: [:])) { e in
            XCTAssertEqual((e as! ConfigError).line, 2)
        }
    }

    /// Every value the delivery engine would refuse (or that would overflow its clock) is
    /// refused when the file is loaded, with its line and key; the limits themselves load and
    /// pass the engine's checks.
    func testEngineLimitsAreCheckedWhereTheValueIsWritten() throws {
        let refused = [
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
        ]
        for (section, setting, key) in refused {
            XCTAssertThrowsError(try ConfigLoader.load(text: "\(section):\n  \(setting)\n", file: "r.yaml", environment: [:])) { e in
                let err = e as! ConfigError
                XCTAssertEqual(err.line, 2, setting)
                XCTAssertTrue(err.message.contains("'\(key)'"), "\(setting): \(err.message)")
            }
        }
        let limits = """
            ingestion: { timeout_seconds: 86400 }
            batching: { max_events: 2500, concurrency: 256, max_event_bytes: 32768, max_bytes: 32816 }
            retry: { max_elapsed_seconds: 31622400, min_wait_ms: 86400000, circuit_breaker: { jitter: 0.999, max_cooldown_ms: 86400000 } }
            """
        let config = try ConfigLoader.load(text: limits, file: "r.yaml", environment: [:])
        XCTAssertNoThrow(try DeliveryTarget.deliveryConfiguration(config, host: "http://127.0.0.1:9"))
        let forever = "retry: { max_elapsed_seconds: 1000000000, circuit_breaker: { max_cooldown_ms: 31536000000 } }\n"
        XCTAssertNoThrow(try ConfigLoader.load(text: forever, file: "r.yaml", environment: [:]), "generous values still load")
    }

    /// `status` reads only state_dir: a config no other command accepts, or whose key is not at
    /// hand, still tells where the state is.
    func testStateDirectoryIsReadLeniently() throws {
        let dir = try makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let text = """
            ingestion: { host: https://x.example, write_key_file: /nonexistent/key }
            retry: { max_elapsed_seconds: 1e300 }
            state_dir: ${STATE:-fallback}
            """
        try writeFile(dir + "/c.yaml", text)
        XCTAssertThrowsError(try ConfigLoader.load(path: dir + "/c.yaml", environment: [:]))
        XCTAssertEqual(try ConfigLoader.stateDirectory(path: dir + "/c.yaml", environment: ["STATE": "/srv/st"]), "/srv/st")
        XCTAssertEqual(try ConfigLoader.stateDirectory(path: dir + "/c.yaml", environment: [:]), "fallback")
        XCTAssertEqual(try ConfigLoader.stateDirectory(path: nil, environment: [:]), ".mr-replay")
        // validate needs no key either, even from a key file it cannot read.
        let noKey = try ConfigLoader.load(
            text: "ingestion: { host: https://x.example, write_key_file: /nonexistent/key }\n", file: "r", environment: [:],
            requireWriteKey: false)
        XCTAssertEqual(noKey.ingestion.host, "https://x.example")
    }

    func testARootThatIsNotAMappingSaysWhatIsExpected() {
        XCTAssertThrowsError(try ConfigLoader.load(text: "hello\n", file: "r.yaml", environment: [:])) { e in
            let err = e as! ConfigError
            XCTAssertEqual(err.line, 1)
            XCTAssertTrue(err.message.hasPrefix("the configuration must be a mapping of sections (ingestion, batching"), err.message)
        }
    }

    func testYAMLSyntaxErrorHasPosition() {
        let yaml = "ingestion:\n  host: [unclosed\n  path: /x\n"
        XCTAssertThrowsError(try ConfigLoader.load(text: yaml, file: "bad.yaml", environment: [:])) { e in
            let err = e as! ConfigError
            XCTAssertGreaterThan(err.line, 1)
            XCTAssertGreaterThan(err.column, 0)
            XCTAssertTrue(err.description.hasPrefix("bad.yaml:\(err.line):\(err.column): YAML syntax error"))
        }
    }

    func testEnvironmentInterpolation() throws {
        let yaml = """
            ingestion:
              host: ${HOST:-https://fallback.example.com}
              write_key: key-${KEY_PART}-end
              timeout_seconds: ${TIMEOUT:-7}
            state_dir: ${STATE:-/tmp/s}/x$$y
            """
        let c = try ConfigLoader.load(text: yaml, file: "r", environment: ["KEY_PART": "abc", "STATE": ""])
        XCTAssertEqual(c.ingestion.host, "https://fallback.example.com")
        XCTAssertEqual(c.writeKey, "key-abc-end")
        XCTAssertEqual(c.ingestion.timeoutSeconds, 7)
        XCTAssertEqual(c.stateDir, "/tmp/s/x$y")
        let c2 = try ConfigLoader.load(text: yaml, file: "r", environment: ["HOST": "https://h.example", "KEY_PART": "z", "TIMEOUT": "3"])
        XCTAssertEqual(c2.ingestion.host, "https://h.example")
        XCTAssertEqual(c2.ingestion.timeoutSeconds, 3)
        XCTAssertThrowsError(try ConfigLoader.load(text: "state_dir: ${OOPS\n", file: "r", environment: [:])) { e in
            XCTAssertEqual((e as! ConfigError).line, 1)
        }
    }

    func testWriteKeyFileAndMasking() throws {
        try writeFile(dir + "/key", "  secret-key-WXYZ\n")
        let yaml = "ingestion:\n  host: https://ingest.example.com\n  write_key_file: key\n"
        try writeFile(dir + "/r.yaml", yaml)
        let c = try ConfigLoader.load(path: dir + "/r.yaml", environment: [:])
        XCTAssertEqual(c.writeKey, "secret-key-WXYZ")
        XCTAssertEqual(c.maskedWriteKey, "****WXYZ")
        for text in [c.description, c.debugDescription, String(describing: c), String(reflecting: c), "\(c.ingestion)"] {
            XCTAssertFalse(text.contains("secret-key"), text)
        }
    }

    func testRemoteHostNeedsKeyAndHTTPS() {
        XCTAssertThrowsError(try ConfigLoader.load(text: "ingestion:\n  host: https://x.example\n", file: "r", environment: [:])) { e in
            XCTAssertTrue((e as! ConfigError).message.contains("no write key"))
        }
        let insecure = "ingestion:\n  host: http://x.example\n  write_key: k\n"
        XCTAssertThrowsError(try ConfigLoader.load(text: insecure, file: "r", environment: [:])) { e in
            XCTAssertEqual((e as! ConfigError).line, 2)
        }
        XCTAssertNoThrow(try ConfigLoader.load(text: insecure + "  allow_insecure_http: true\n", file: "r", environment: [:]))
        XCTAssertNoThrow(try ConfigLoader.load(text: "ingestion:\n  host: http://127.0.0.1:8080\n  write_key: k\n", file: "r", environment: [:]))
    }

    func testEnrichmentAndPrivacySections() throws {
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
        XCTAssertEqual(c.enrichment.defaultTimestamp, .now)
        XCTAssertEqual(c.enrichment.context.app?["build"], .number(JSONNumber(42)))
        XCTAssertEqual(c.enrichment.context.app?["name"], .string("demo"))
        XCTAssertEqual(c.enrichment.context.locale, "de-DE")
        XCTAssertEqual(c.privacy.dropProperties, ["email", "ssn"])
    }

    func testEmptyFileGivesDefaults() throws {
        let c = try ConfigLoader.load(text: "", file: "r", environment: [:])
        XCTAssertEqual(c.writeKey, ReplayConfig.embeddedWriteKey)
        XCTAssertEqual(c.maskedWriteKey, "****ocal")
    }
}

import JSONCore

final class WriteKeyTests: XCTestCase {
    func testSetWriteKeyIsMasked() {
        var c = ReplayConfig.defaults
        c.setWriteKey("abcdefgh1234")
        XCTAssertEqual(c.writeKey, "abcdefgh1234")
        XCTAssertEqual(c.maskedWriteKey, "****1234")
        XCTAssertFalse(String(describing: c).contains("abcdefgh"))
        c.setWriteKey("abc")
        XCTAssertEqual(c.maskedWriteKey, "****")
    }
}
