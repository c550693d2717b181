extension RunReport {
    /// What the run's acknowledgment log held: what it wrote, and what an earlier
    /// run's log held that this run folded into the checkpoint and did not send again.
    public struct Acknowledgments: Codable, Sendable, Equatable {
        /// Lines this run wrote to the log as the destination acknowledged them.
        public var linesLogged = 0
        /// Bytes this run wrote to the log.
        public var logBytes: UInt64 = 0
        /// Lines an earlier run acknowledged after its last checkpoint, folded into the
        /// checkpoint when this run started (read again, counted `already_delivered`, not sent).
        public var foldedLines = 0
        /// Snapshot messageIds an earlier run acknowledged, recorded as settled the same way.
        public var foldedMessageIds = 0

        enum CodingKeys: String, CodingKey {
            case linesLogged = "lines_logged"
            case logBytes = "log_bytes"
            case foldedLines = "folded_lines"
            case foldedMessageIds = "folded_message_ids"
        }

        /// Zero counts.
        public init() {}

        public init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            linesLogged = try c.decodeIfPresent(Int.self, forKey: .linesLogged) ?? 0
            logBytes = try c.decodeIfPresent(UInt64.self, forKey: .logBytes) ?? 0
            foldedLines = try c.decodeIfPresent(Int.self, forKey: .foldedLines) ?? 0
            foldedMessageIds = try c.decodeIfPresent(Int.self, forKey: .foldedMessageIds) ?? 0
        }
    }
}
