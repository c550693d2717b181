extension ReplayConfig {
    /// `reports:` section: the run history in `<state_dir>/reports/`.
    public struct Reports: Sendable, Equatable {
        /// `keep`: how many run reports the history keeps (the oldest are removed); 0 keeps none.
        public var keep = 30
        /// Creates the defaults.
        public init() {}
    }
}

extension ConfigLoader {
    static func readReports(_ node: YAMLNode, into config: inout ReplayConfig, _ r: ConfigReader) throws(ConfigError) {
        let m = try r.members(node, section: "reports", allowed: ["keep"])
        if let v = m["keep"]?.value { config.reports.keep = try r.int(v, "reports.keep", min: 0, max: 100_000) }
    }
}
