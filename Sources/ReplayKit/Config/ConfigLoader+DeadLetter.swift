extension ReplayConfig {
    /// `dead_letter:` section: how the dead-letter file is kept.
    public struct DeadLetterSettings: Sendable, Equatable {
        /// `max_bytes`: the dead-letter file is rotated (renamed to `dead-letter.N.ndjson`, N one
        /// more than the last) before a record would take it past this size; 0 = never rotated.
        public var maxBytes = 104_857_600
        /// Creates the defaults.
        public init() {}
    }
}

extension ConfigLoader {
    /// Reads `dead_letter`.
    static func readDeadLetter(_ node: YAMLNode, into config: inout ReplayConfig, _ r: ConfigReader) throws(ConfigError) {
        let m = try r.members(node, section: "dead_letter", allowed: ["max_bytes"])
        if let v = m["max_bytes"]?.value { config.deadLetter.maxBytes = try r.int(v, "dead_letter.max_bytes", min: 0) }
    }
}
