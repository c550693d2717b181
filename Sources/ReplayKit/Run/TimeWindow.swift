@_spi(PerLine) import MetaRouterDelivery
import ReplayConfiguration
import Timestamps

/// Which events a run sends, by the time they happened (`--since`, `--until`): events at or after
/// `since` and before `until`. The event's time is the one the enrichment rules give it:
/// `timestamp`, else `originalTimestamp`, else (with `enrichment.default_timestamp: now`) the
/// replay time. Events outside the window are counted as `filtered` and not sent.
///
/// A run stores its window in the checkpoint: a resume keeps it, and refuses another one
/// (``resolve(given:stored:checkpointHasProgress:)``).
public struct TimeWindow: Sendable, Equatable, Codable, CustomStringConvertible {
    /// The first time sent (epoch ms, inclusive), if bounded.
    public let sinceMillis: Int64?
    /// The first time no longer sent (epoch ms, exclusive), if bounded.
    public let untilMillis: Int64?

    /// A window from epoch milliseconds; fails unless `since < until`.
    public init(sinceMillis: Int64?, untilMillis: Int64?) throws {
        if let sinceMillis, let untilMillis, sinceMillis >= untilMillis {
            throw UsageError(
                "--since \(Timestamp.iso8601(epochMillis: sinceMillis)) is not before --until "
                    + "\(Timestamp.iso8601(epochMillis: untilMillis)): the window would hold no event")
        }
        self.sinceMillis = sinceMillis
        self.untilMillis = untilMillis
    }

    /// Parses `--since` and `--until`: ISO 8601 (`2024-05-01`, `2024-05-01T10:00`,
    /// `2024-05-01T10:00:00.000+02:00`, ...), read as UTC when no zone is given, the same forms
    /// and rule as event timestamps (``Timestamp``).
    public init(since: String?, until: String?) throws {
        func parse(_ text: String?, _ option: String) throws -> Int64? {
            guard let text else { return nil }
            guard let ms = Timestamp.epochMillis(text) else {
                throw UsageError(
                    "\(option) expects an ISO 8601 time such as 2024-05-01, 2024-05-01T10:00:00Z or 2024-05-01T12:00+02:00 "
                        + "(no zone means UTC); got \"\(text)\"")
            }
            return ms
        }
        try self.init(sinceMillis: try parse(since, "--since"), untilMillis: try parse(until, "--until"))
    }

    /// Whether the window lets every event through.
    public var isUnbounded: Bool { sinceMillis == nil && untilMillis == nil }

    /// The bounds as the per-line check reads them: `Int64.min` / `Int64.max` when open.
    var bounds: (since: Int64, until: Int64) { (sinceMillis ?? .min, untilMillis ?? .max) }

    /// `since 2024-05-01T00:00:00.000Z until 2024-06-01T00:00:00.000Z`, `since ...`, `until ...`,
    /// or `no window`.
    public var description: String {
        let parts = [
            sinceMillis.map { "since \(Timestamp.iso8601(epochMillis: $0))" },
            untilMillis.map { "until \(Timestamp.iso8601(epochMillis: $0))" },
        ].compactMap { $0 }
        return parts.isEmpty ? "no window" : parts.joined(separator: " ")
    }

    enum CodingKeys: String, CodingKey { case since, until }

    /// Stored as ISO 8601 UTC strings with milliseconds, which read back to the same instants.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(sinceMillis.map { Timestamp.iso8601(epochMillis: $0) }, forKey: .since)
        try c.encodeIfPresent(untilMillis.map { Timestamp.iso8601(epochMillis: $0) }, forKey: .until)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func read(_ key: CodingKeys) throws -> Int64? {
            guard let text = try c.decodeIfPresent(String.self, forKey: key) else { return nil }
            guard let ms = Timestamp.epochMillis(text) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "not an ISO 8601 time: \(text)")
            }
            return ms
        }
        sinceMillis = try read(.since)
        untilMillis = try read(.until)
    }

    /// The window a run uses, given the one asked for (`nil`: no `--since`/`--until`) and the one
    /// its checkpoint was made with. A checkpoint's position only holds for its window, so a run
    /// that continues a checkpoint keeps its window (asking for none keeps it too), and asking for
    /// another one is refused (exit 2). A checkpoint with no position yet (a first run, or
    /// `--fresh`) takes the window asked for.
    static func resolve(
        given: TimeWindow?, stored: TimeWindow?, checkpointHasProgress: Bool, stateDirectory: String
    ) throws -> TimeWindow? {
        let given = given.flatMap { $0.isUnbounded ? nil : $0 }
        guard checkpointHasProgress else { return given }
        guard let given else { return stored }
        if given == stored { return given }
        throw UsageError(
            "the checkpoint in \(stateDirectory) was made with \(stored.map { "the time window \($0)" } ?? "no time window"), "
                + "and this run asks for \(given). A checkpoint's position only holds for its own window: run again with "
                + (stored.map { "the same window (\(Self.options(for: $0))) or without --since/--until to keep it" }
                    ?? "no --since/--until to continue it")
                + ", or start over with --fresh (everything is read again), or use another --state-dir for this window")
    }

    /// The options that ask for `window`: `--since 2024-05-01T00:00:00.000Z --until ...`.
    static func options(for window: TimeWindow) -> String {
        [
            window.sinceMillis.map { "--since \(Timestamp.iso8601(epochMillis: $0))" },
            window.untilMillis.map { "--until \(Timestamp.iso8601(epochMillis: $0))" },
        ].compactMap { $0 }.joined(separator: " ")
    }
}
