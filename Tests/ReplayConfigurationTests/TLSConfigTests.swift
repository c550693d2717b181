import Foundation
import MetaRouterDelivery
import ReplayConfiguration
import TestSupport
import Testing

/// `ingestion.tls`, `ingestion.proxy` and `ingestion.no_proxy`: what they load into, and the
/// errors (file, line, key) for files that cannot be used and settings that do not fit together.
@Suite final class TLSConfigTests {
    let dir: String
    let pki: TLSTestPKI
    init() throws {
        dir = try makeTempDir()
        pki = try TLSTestPKI(dir: dir)
    }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    /// Loads `ingestion` lines (after a remote host and key) from `c.yaml` in the temp directory.
    func load(
        _ lines: [String], host: String = "https://ingest.example.com", env: [String: String] = [:],
        requireWriteKey: Bool = true
    ) throws -> ReplayConfig {
        let yaml = (["ingestion:", "  host: \(host)", "  write_key: k"] + lines.map { "  " + $0 }).joined(separator: "\n") + "\n"
        try writeFile(dir + "/c.yaml", yaml)
        return try ConfigLoader.load(path: dir + "/c.yaml", environment: env, requireWriteKey: requireWriteKey)
    }

    /// The error of loading `lines`.
    func failure(_ lines: [String], env: [String: String] = [:]) -> ConfigError? {
        do {
            _ = try load(lines, env: env)
            return nil
        } catch {
            return error as? ConfigError
        }
    }

    @Test func filesResolveAgainstTheConfigDirectoryAndCAFileReplacesTheSystemRoots() throws {
        let c = try load(["tls:", "  ca_file: ca.pem", "  client_cert: client.pem", "  client_key: \(pki.clientKeyFile)"])
        #expect(c.ingestion.security.trust == .only(caFile: dir + "/ca.pem"))
        #expect(c.ingestion.security.clientCertificate == .init(certificateFile: dir + "/client.pem", privateKeyFile: pki.clientKeyFile))
        let both = try load(["tls:", "  ca_file: ca.pem", "  system_roots: true"])
        #expect(both.ingestion.security.trust == .systemRootsAnd(caFile: dir + "/ca.pem"))
        #expect(try load([]).ingestion.security == TransportSecurity())
    }

    @Test func errorsNameTheFileLineAndKey() throws {
        let cases: [(lines: [String], line: Int, message: String)] = [
            (["tls:", "  client_key: client.key"], 5, "'ingestion.tls.client_key' needs 'ingestion.tls.client_cert'"),
            (["tls:", "  client_cert: client.pem"], 5, "'ingestion.tls.client_cert' needs 'ingestion.tls.client_key'"),
            (["tls:", "  ca_file: missing.pem"], 5, "missing.pem does not exist"),
            (["tls:", "  ca_file: c.yaml"], 5, "c.yaml holds no readable PEM CA certificate"),
            (["tls:", "  ca_file: ca.pem", "  client_cert: client.pem", "  client_key: ca.pem"], 7, "ca.pem is not an unencrypted PEM private key"),
            (["tls:", "  client_cert: client.pem", "  client_key: server.key"], 6, "server.key is not the private key of"),
            (["tls:", "  ca_fil: ca.pem"], 5, "unknown key 'ingestion.tls.ca_fil'; did you mean 'ingestion.tls.ca_file'?"),
            (["tls:", "  system_roots: false"], 5, "needs 'ingestion.tls.ca_file'"),
            (["proxy: https://proxy.example:3128"], 4, "'ingestion.proxy': \"https://proxy.example:3128\": only http:// proxies"),
            (["proxy: proxy.example"], 4, "has no port"),
        ]
        for c in cases {
            let error = try #require(failure(c.lines), "\(c.lines)")
            #expect(error.file == dir + "/c.yaml")
            #expect(error.line == c.line, "\(error)")
            #expect(error.message.contains(c.message), "\(error)")
        }
    }

    @Test func validateReadsNoTLSFile() throws {
        let c = try load(["tls:", "  ca_file: missing.pem"], requireWriteKey: false)
        #expect(c.ingestion.security.trust == .only(caFile: dir + "/missing.pem"))
    }

    @Test func proxyComesFromTheConfigThenTheEnvironmentAndNoProxyBypassesIt() throws {
        let env = ["HTTPS_PROXY": "http://env-proxy:8080", "NO_PROXY": "internal.example"]
        #expect(try load([], env: env).ingestion.security.proxy == HTTPProxy(host: "env-proxy", port: 8080))
        #expect(try load(["proxy: http://cfg-proxy:3128"], env: env).ingestion.security.proxy == HTTPProxy(host: "cfg-proxy", port: 3128))
        #expect(try load(["proxy: none"], env: env).ingestion.security.proxy == nil)
        #expect(try load([], host: "https://api.internal.example", env: env).ingestion.security.proxy == nil)
        #expect(try load(["no_proxy: other.example"], host: "https://api.internal.example", env: env).ingestion.security.proxy != nil)
        #expect(try load([], host: "embedded", env: env).ingestion.security.proxy == nil)
        let authed = try load(["proxy: http://me:pr0xy-s3cret@cfg-proxy:3128"])
        var dumped = ""
        dump(authed, to: &dumped)
        for text in ["\(authed.ingestion)", String(reflecting: authed.ingestion), "\(authed.ingestion.security)", dumped] {
            #expect(!text.contains("pr0xy-s3cret"), "\(text)")
        }
        #expect("\(authed.ingestion.security)".contains("http://me:****@cfg-proxy:3128"))
        let bad = try #require(failure([], env: ["HTTPS_PROXY": "socks5://p:1080"]))
        #expect(bad.message.contains("environment variable HTTPS_PROXY"), "\(bad)")
    }
}
