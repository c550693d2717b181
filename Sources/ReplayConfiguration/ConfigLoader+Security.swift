@_spi(PerLine) import MetaRouterDelivery

/// `ingestion.tls`, `ingestion.proxy` and `ingestion.no_proxy`: how the transport reaches the
/// endpoint (``TransportSecurity``).
extension ConfigLoader {
    /// The YAML nodes of the ingestion members that shape the transport.
    struct SecurityNodes {
        var tls: YAMLNode?
        var proxy: YAMLNode?
        var noProxy: YAMLNode?
        /// The `ingestion` section, for errors without a member of their own.
        var section: YAMLNode
    }

    /// Reads the TLS and proxy settings for `ingestion`. Relative file paths are resolved against
    /// `baseDirectory`; the files are read (and their errors reported with the key's line) only
    /// when `checkFiles`. The proxy is resolved for the endpoint now, from `ingestion.proxy` or
    /// the environment (``HTTPProxy/resolve(for:configured:noProxy:environment:)``); the
    /// embedded collector never goes through a proxy.
    static func readSecurity(
        _ nodes: SecurityNodes, ingestion: ReplayConfig.Ingestion, _ r: ConfigReader, baseDirectory: String, checkFiles: Bool
    ) throws(ConfigError) -> TransportSecurity {
        var security = TransportSecurity()
        var fileNodes: [String: YAMLNode] = [:]
        if let tls = nodes.tls {
            let s = "ingestion.tls"
            let m = try r.members(tls, section: s, allowed: ["ca_file", "system_roots", "client_cert", "client_key"])
            func path(_ key: String) throws(ConfigError) -> String? {
                guard let v = m[key]?.value else { return nil }
                let text = try r.string(v, "\(s).\(key)")
                if text.isEmpty { throw r.error(v, "'\(s).\(key)' must not be empty") }
                return text.hasPrefix("/") || baseDirectory.isEmpty ? text : baseDirectory + "/" + text
            }
            let systemRoots = try m["system_roots"].map { e throws(ConfigError) in try r.bool(e.value, "\(s).system_roots") }
            if let ca = try path("ca_file") {
                security.trust = systemRoots == true ? .systemRootsAnd(caFile: ca) : .only(caFile: ca)
                fileNodes[TransportSecurity.Setting.caFile] = m["ca_file"]?.value
            } else if systemRoots == false, let v = m["system_roots"]?.value {
                throw r.error(v, "'\(s).system_roots: false' needs '\(s).ca_file' (otherwise no certificate would be trusted)")
            }
            switch (try path("client_cert"), try path("client_key")) {
            case (let cert?, let key?):
                security.clientCertificate = .init(certificateFile: cert, privateKeyFile: key)
                fileNodes[TransportSecurity.Setting.clientCertificateFile] = m["client_cert"]?.value
                fileNodes[TransportSecurity.Setting.clientPrivateKeyFile] = m["client_key"]?.value
            case (nil, _?):
                throw r.error(m["client_key"]!.value, "'\(s).client_key' needs '\(s).client_cert', the certificate it belongs to")
            case (_?, nil):
                throw r.error(m["client_cert"]!.value, "'\(s).client_cert' needs '\(s).client_key', its private key")
            case (nil, nil):
                break
            }
        }
        if checkFiles {
            do {
                try security.check()
            } catch {
                throw r.error(fileNodes[error.setting] ?? nodes.tls ?? nodes.section, error.message)
            }
        }
        security.proxy = try resolveProxy(nodes, ingestion: ingestion, r)
        return security
    }

    /// The proxy for the endpoint, or nil (direct, or the embedded collector).
    private static func resolveProxy(
        _ nodes: SecurityNodes, ingestion: ReplayConfig.Ingestion, _ r: ConfigReader
    ) throws(ConfigError) -> HTTPProxy? {
        let configured = try nodes.proxy.map { v throws(ConfigError) in try r.string(v, "ingestion.proxy") }
        let noProxy = try nodes.noProxy.map { v throws(ConfigError) in try r.string(v, "ingestion.no_proxy") }
        if ingestion.isEmbedded { return nil }
        do {
            return try HTTPProxy.resolve(
                for: ingestion.host, configured: configured, noProxy: noProxy, environment: r.environment)
        } catch {
            if error.setting == "proxy", let v = nodes.proxy { throw r.error(v, "'ingestion.proxy': \(error.message)") }
            throw ConfigError(
                file: r.file, line: 0, column: 0,
                message: "environment variable \(error.setting) (the proxy for \(ingestion.host)): \(error.message)")
        }
    }
}
