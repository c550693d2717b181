/// Where the collector keeps accepted events.
public enum CollectorStore: Sendable, Equatable {
    /// Keep nothing (events are still counted).
    case none
    /// Append each accepted event as one line to an NDJSON file at this path.
    case ndjson(String)
    /// Insert each accepted event into an embedded SQLite database at this path.
    case sqlite(String)

    /// Picks the store from a file name: `.sqlite`, `.sqlite3` and `.db` mean SQLite, anything else NDJSON.
    public static func forPath(_ path: String) -> CollectorStore {
        let lower = path.lowercased()
        if lower.hasSuffix(".sqlite") || lower.hasSuffix(".sqlite3") || lower.hasSuffix(".db") {
            return .sqlite(path)
        }
        return .ndjson(path)
    }
}
