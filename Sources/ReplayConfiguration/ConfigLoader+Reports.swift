extension ConfigLoader {
    static func readReports(_ node: YAMLNode, into config: inout ReplayConfig, _ r: ConfigReader) throws(ConfigError) {
        let m = try r.members(node, section: "reports", allowed: ["keep"])
        if let v = m["keep"]?.value { config.reports.keep = try r.int(v, "reports.keep", min: 0, max: 100_000) }
    }
}
