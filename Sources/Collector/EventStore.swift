/// Somewhere accepted events are kept.
protocol EventStore: Sendable {
    /// Appends one request's accepted events; when it returns they are written.
    func append(_ events: [StoredEvent]) async throws
    /// Flushes and closes the store.
    func close() async throws
}

/// Errors from the stores.
public struct CollectorStoreError: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    public let description: String
}

extension CollectorStore {
    /// Opens the store, or returns nil for `.none`.
    func open() throws -> (any EventStore)? {
        switch self {
        case .none: return nil
        case .ndjson(let path): return try NDJSONStore(path: path)
        case .sqlite(let path): return try SQLiteStore(path: path)
        }
    }
}
