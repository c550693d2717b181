extension ConfigLoader {
    /// Reads `dead_letter`.
    static func readDeadLetter(_ node: YAMLNode, into config: inout ReplayConfig, _ r: ConfigReader) throws(ConfigError) {
        let m = try r.members(node, section: "dead_letter", allowed: ["max_bytes"])
        if let v = m["max_bytes"]?.value { config.deadLetter.maxBytes = try r.int(v, "dead_letter.max_bytes", min: 0) }
    }
}
