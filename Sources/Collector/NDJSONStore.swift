import SystemIO

/// Appends accepted events to a file, one JSON object per line.
///
/// An ``AppendOnlyFile``: each request's events are written whole before it is answered, so an
/// accepted response means the lines are in the file; `close` also `fsync`s.
actor NDJSONStore: EventStore {
    private let file: AppendOnlyFile

    init(path: String) throws {
        do {
            file = try AppendOnlyFile(path: path)
        } catch {
            throw CollectorStoreError(description: "\(error)")
        }
    }

    func append(_ events: [StoredEvent]) throws {
        guard file.descriptor >= 0 else { throw CollectorStoreError(description: "the NDJSON store is closed") }
        var out: [UInt8] = []
        out.reserveCapacity(events.reduce(0) { $0 + $1.json.count + 1 })
        for e in events {
            out.append(contentsOf: e.json)
            out.append(0x0A)
        }
        do {
            try file.append(out)
        } catch {
            throw CollectorStoreError(description: "\(error)")
        }
    }

    func close() throws {
        guard file.descriptor >= 0 else { return }
        try? file.sync()
        try file.close()
    }
}
