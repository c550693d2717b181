import Foundation
@_spi(PerLine) import MetaRouterDelivery

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
        config.inputs.s3.environment = ReplayConfig.AWSEnvironment(environment)
        guard let root = try YAMLReader.parse(text, file: file) else {
            try finish(&config, writeKey: nil, keyNode: nil, file: file, requireWriteKey: requireWriteKey)
            return config
        }
        let r = ConfigReader(file: file, environment: environment)
        let top = try r.members(
            root, section: "",
            allowed: [
                "ingestion", "batching", "rate_limit", "retry", "enrichment", "privacy", "inputs", "reports", "dead_letter",
                "state_dir", "transform",
            ])
        var source = WriteKeySource()
        if let (_, node) = top["ingestion"] {
            source = try readIngestion(
                node, into: &config, r, baseDirectory: baseDirectory, requireWriteKey: requireWriteKey)
        }
        if let (_, node) = top["batching"] { try readBatching(node, into: &config, r) }
        if let (_, node) = top["rate_limit"] { try readRateLimit(node, into: &config, r) }
        if let (_, node) = top["retry"] { try readRetry(node, into: &config, r) }
        if let (_, node) = top["enrichment"] { try readEnrichment(node, into: &config, r) }
        if let (_, node) = top["privacy"] { try readPrivacy(node, into: &config, r) }
        if let (_, node) = top["inputs"] { try readInputs(node, into: &config, r) }
        if let (_, node) = top["transform"] { try readTransform(node, into: &config.inputs.shaping, r) }
        if let (_, node) = top["reports"] { try readReports(node, into: &config, r) }
        if let (_, node) = top["dead_letter"] { try readDeadLetter(node, into: &config, r) }
        if let (_, node) = top["state_dir"] {
            config.stateDir = try r.string(node, "state_dir")
            if config.stateDir.isEmpty { throw r.error(node, "'state_dir' must not be empty") }
        }
        try finish(&config, writeKey: source.key, keyNode: source.node ?? root, file: file, requireWriteKey: requireWriteKey)
        return config
    }

    static func identityRules(_ node: YAMLNode, _ r: ConfigReader) throws(ConfigError) -> ReplayConfig.IdentityRules {
        let s = "enrichment.identity"
        let m = try r.members(node, section: s, allowed: ["user_lines", "device_lines", "logout_events"])
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
        if let v = m["logout_events"]?.value {
            var names: [String] = []
            for name in try r.stringList(v, "\(s).logout_events") where !names.contains(name) {
                guard !name.isEmpty else { throw r.error(v, "'\(s).logout_events' must not contain an empty event name") }
                names.append(name)
            }
            rules.logoutEvents = names
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

    static func checkHost(_ host: String, allowInsecureHTTP: Bool, node: YAMLNode, _ r: ConfigReader) throws(ConfigError) {
        if host == ReplayConfig.embeddedHost { return }
        guard let url = URL(string: host), let scheme = url.scheme?.lowercased(), let name = url.host, !name.isEmpty else {
            throw r.error(node, "'ingestion.host' must be 'embedded' or a URL such as https://ingest.example.com")
        }
        switch scheme {
        case "https": return
        case "http":
            let loopback = name == "localhost" || name == "127.0.0.1" || name == "::1" || name == "[::1]"
            if !loopback && !allowInsecureHTTP {
                throw r.error(node, "'ingestion.host' uses plain http to a remote host; use https or set 'ingestion.allow_insecure_http: true'")
            }
        default:
            throw r.error(node, "'ingestion.host' must use http or https")
        }
    }
}
