import Foundation

/// The counters of one collector, full or count-only: what `GET /stats` returns and what
/// `mr-collector` prints on stderr when it stops, as compact JSON with sorted keys.
///
/// The count-only sink counts `requests`, `responses`, `events`, `bytes` and
/// `max_batch_events`; it leaves `unique`, `duplicates`, `invalid` and `resets` at 0.
public struct CollectorStats: Codable, Sendable, Equatable {
    /// Ingestion requests received (everything except `GET /stats`), resets included.
    public var requests: Int
    /// Responses sent, by status code (as a string key, e.g. "200").
    public var responses: [String: Int]
    /// Events accepted (and stored, when a store is configured).
    public var events: Int
    /// Distinct `messageId`s among accepted events (not tracked in count-only mode).
    public var unique: Int
    /// Accepted events whose `messageId` had been seen before.
    public var duplicates: Int
    /// Events left out (or that failed a strict request) because they were invalid.
    public var invalid: Int
    /// Request body bytes received, as sent on the wire (before decompression).
    public var bytes: Int
    /// The most events in one accepted batch, counted as sent (invalid events included).
    public var maxBatchEvents: Int
    /// Connections reset on purpose by fault injection.
    public var resets: Int

    enum CodingKeys: String, CodingKey {
        case requests, responses, events, unique, duplicates, invalid, bytes, resets
        case maxBatchEvents = "max_batch_events"
    }

    /// Creates stats; all zero by default.
    public init(
        requests: Int = 0, responses: [String: Int] = [:], events: Int = 0, unique: Int = 0,
        duplicates: Int = 0, invalid: Int = 0, bytes: Int = 0, maxBatchEvents: Int = 0, resets: Int = 0
    ) {
        self.requests = requests
        self.responses = responses
        self.events = events
        self.unique = unique
        self.duplicates = duplicates
        self.invalid = invalid
        self.bytes = bytes
        self.maxBatchEvents = maxBatchEvents
        self.resets = resets
    }

    /// How many responses carried `status`.
    public func responses(_ status: Int) -> Int { responses[String(status)] ?? 0 }

    /// The stats as compact JSON with sorted keys (what `GET /stats` returns), e.g.
    /// `{"bytes":512,"duplicates":0,"events":2,"invalid":0,"max_batch_events":2,"requests":1,"resets":0,"responses":{"200":1},"unique":2}`.
    public var jsonText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Integers and a dictionary of integers always encode; "{}" is never reached.
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
