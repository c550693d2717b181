import Collector
import Foundation
import ServerTesting
import Synchronization
import TestSupport
import Testing

/// End to end: the real `mr-replay` binary against a local HTTPS collector whose certificate
/// the test makes at run time (``TLSTestPKI``): an untrusted CA stops the run with exit 3,
/// `ingestion.tls.ca_file` makes it succeed, mutual TLS is refused without a client
/// certificate and accepted with one, and a proxy (``TestHTTPProxy``) carries the run when
/// `HTTPS_PROXY` or `ingestion.proxy` names it, unless `NO_PROXY` matches.
@Suite(.serialized, .enabled(if: hasBuiltBinary("mr-replay"), "needs the mr-replay binary next to the test bundle (swift build)"))
final class TLSRunTests {
    let dir: String
    let pki: TLSTestPKI
    static let events = 3
    init() throws {
        dir = try makeTempDir()
        pki = try TLSTestPKI(dir: dir)
        let line = { (i: Int) in "{\"type\":\"track\",\"event\":\"e\(i)\",\"anonymousId\":\"a\",\"timestamp\":\"2024-01-01T00:00:00Z\"}\n" }
        try writeFile(dir + "/in.ndjson", (1...Self.events).map(line).joined())
    }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    /// Runs `body` with an HTTPS collector on a free port (requiring client certificates from
    /// the test CA when `mutual`), then stops it.
    func withCollector(mutual: Bool = false, _ body: (CollectorServer, _ port: Int) async throws -> Void) async throws {
        var configuration = CollectorConfiguration(writeKey: "tls-key")
        configuration.tls = CollectorTLS(
            certificateFile: pki.serverCertFile, privateKeyFile: pki.serverKeyFile, clientCAFile: mutual ? pki.caFile : nil)
        let server = CollectorServer(configuration: configuration)
        try await withRunningServer(server) { running in try await body(server, running.port) }
    }

    /// Writes a config for `https://127.0.0.1:port` with these extra `ingestion` lines and runs
    /// `mr-replay run` with a state directory of its own.
    func replay(port: Int, _ ingestion: [String], state: String, environment: [String: String] = [:]) async throws -> ProcessResult {
        let yaml =
            (["ingestion:", "  host: https://127.0.0.1:\(port)", "  write_key: tls-key", "  timeout_seconds: 3"]
            + ingestion.map { "  " + $0 } + ["retry:", "  max_attempts: 2", "  min_wait_ms: 10", "state_dir: \(state)"])
            .joined(separator: "\n") + "\n"
        try writeFile(dir + "/\(state).yaml", yaml)
        return try await Subprocess.runOnThread(
            try builtBinary("mr-replay"), ["run", "--quiet", "--config", "\(state).yaml", "in.ndjson"],
            directory: dir, environment: environment)
    }

    @Test func untrustedCertificateStopsTheRunWithExit3() async throws {
        try await withCollector { server, port in
            for (state, lines) in [("system", [String]()), ("other", ["tls:", "  ca_file: other-ca.pem"])] {
                let r = try await replay(port: port, lines, state: state)
                #expect(r.code == 3, "\(state): \(r.err)")
                #expect(r.err.contains("failed_fatal"), "\(r.err)")
                #expect(r.err.contains("certificate is not trusted"), "\(r.err)")
                #expect(r.err.contains("ingestion.tls"), "\(r.err)")
            }
            #expect(server.stats().events == 0)
        }
    }

    @Test func caFileNamingTheCAMakesTheRunSucceed() async throws {
        try await withCollector { server, port in
            let r = try await replay(port: port, ["tls:", "  ca_file: ca.pem"], state: "ca")
            #expect(r.code == 0, "\(r.err)")
            #expect(server.stats().events == Self.events)
        }
    }

    @Test func mutualTLSIsRefusedWithoutAClientCertificateAndAcceptedWithOne() async throws {
        try await withCollector(mutual: true) { server, port in
            let without = try await replay(port: port, ["tls:", "  ca_file: ca.pem"], state: "without")
            #expect(without.code == 3, "\(without.err)")
            #expect(without.err.contains("refused the TLS handshake"), "\(without.err)")
            #expect(server.stats().events == 0)
            let with = try await replay(
                port: port, ["tls:", "  ca_file: ca.pem", "  client_cert: client.pem", "  client_key: client.key"], state: "with")
            #expect(with.code == 0, "\(with.err)")
            #expect(server.stats().events == Self.events)
        }
    }

    @Test func proxyFromTheEnvironmentOrTheConfigCarriesTheRunUnlessNoProxyMatches() async throws {
        try await withCollector { server, port in
            let proxy = try TestHTTPProxy()
            defer { proxy.stop() }
            let tls = ["tls:", "  ca_file: ca.pem"]
            let viaEnv = try await replay(port: port, tls, state: "env", environment: ["HTTPS_PROXY": "http://127.0.0.1:\(proxy.port)"])
            #expect(viaEnv.code == 0, "\(viaEnv.err)")
            #expect(proxy.connectTargets.count >= 1)
            #expect(Set(proxy.connectTargets) == ["127.0.0.1:\(port)"])
            #expect(server.stats().events == Self.events)

            let before = proxy.connectTargets.count
            let bypassed = try await replay(
                port: port, tls, state: "bypass", environment: ["https_proxy": "http://127.0.0.1:\(proxy.port)", "NO_PROXY": "localhost,127.0.0.1"])
            #expect(bypassed.code == 0, "\(bypassed.err)")
            #expect(proxy.connectTargets.count == before, "NO_PROXY matched: no CONNECT")
            #expect(server.stats().events == 2 * Self.events)

            // The config's proxy wins over a dead one in the environment.
            let configured = try await replay(
                port: port, tls + ["proxy: http://127.0.0.1:\(proxy.port)"], state: "config", environment: ["HTTPS_PROXY": "http://127.0.0.1:1"])
            #expect(configured.code == 0, "\(configured.err)")
            #expect(proxy.connectTargets.count > before)
            #expect(server.stats().events == 3 * Self.events)
        }
    }

    /// `mr-collector --tls-cert --tls-key --tls-client-ca` serves mutual TLS that `mr-replay` passes with its client certificate.
    @Test(.enabled(if: hasBuiltBinary("mr-collector"), "needs the mr-collector binary"))
    func collectorServesTLSFromItsFlags() async throws {
        let collector = Process()
        collector.executableURL = try builtBinary("mr-collector")
        collector.arguments = [
            "--port", "0", "--write-key", "tls-key", "--tls-cert", pki.serverCertFile,
            "--tls-key", pki.serverKeyFile, "--tls-client-ca", pki.caFile,
        ]
        let out = Pipe(), err = Pipe()
        collector.standardOutput = out
        collector.standardError = err
        try collector.run()
        let first = firstLine(out)
        #expect(first.hasPrefix("mr-collector listening on https://127.0.0.1:"), "\(first)")
        let port = try #require(Int(first.split(separator: ":").last ?? ""))
        let r = try await replay(
            port: port, ["tls:", "  ca_file: ca.pem", "  client_cert: client.pem", "  client_key: client.key"], state: "flags")
        #expect(r.code == 0, "\(r.err)")
        kill(collector.processIdentifier, SIGTERM)
        let stats = String(decoding: try err.fileHandleForReading.readToEnd() ?? Data(), as: UTF8.self)
        collector.waitUntilExit()
        #expect(collector.terminationStatus == 0, "\(stats)")
        #expect(stats.contains("\"events\":\(Self.events)"), "\(stats)")

        let half = try await Subprocess.runOnThread(
            try builtBinary("mr-collector"), ["--write-key", "k", "--tls-cert", pki.serverCertFile], directory: dir)
        #expect(half.code == 2)
        #expect(half.err.contains("--tls-cert and --tls-key go together"), "\(half.err)")
        let missing = try await Subprocess.runOnThread(
            try builtBinary("mr-collector"), ["--write-key", "k", "--tls-cert", dir + "/nope.pem", "--tls-key", pki.serverKeyFile],
            directory: dir)
        #expect(missing.code == 2)
        #expect(missing.err.contains("cannot serve TLS") && missing.err.contains("nope.pem"), "\(missing.err)")
    }

    /// The first line `pipe` gets, read byte by byte so nothing after it is consumed.
    private func firstLine(_ pipe: Pipe) -> String {
        var line: [UInt8] = []
        while let chunk = try? pipe.fileHandleForReading.read(upToCount: 1), let byte = chunk.first, byte != 0x0A {
            line.append(byte)
        }
        return String(decoding: line, as: UTF8.self)
    }
}
