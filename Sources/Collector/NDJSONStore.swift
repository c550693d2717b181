import FileDescriptorIO

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Appends accepted events to a file, one JSON object per line.
///
/// Each request's events are written whole (``writeAll(_:to:)``) before it is answered, so an
/// accepted response means the lines are in the file; `close` also `fsync`s.
actor NDJSONStore: EventStore {
    private var fd: Int32
    /// The file, for errors.
    private let path: String

    init(path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw CollectorStoreError(description: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        self.fd = fd
        self.path = path
    }

    func append(_ events: [StoredEvent]) throws {
        guard fd >= 0 else { throw CollectorStoreError(description: "the NDJSON store is closed") }
        var out: [UInt8] = []
        out.reserveCapacity(events.reduce(0) { $0 + $1.json.count + 1 })
        for e in events {
            out.append(contentsOf: e.json)
            out.append(0x0A)
        }
        do {
            try writeAll(out, to: fd)
        } catch {
            throw CollectorStoreError(description: "cannot write \(path): \(error)")
        }
    }

    func close() throws {
        guard fd >= 0 else { return }
        _ = fsync(fd)
        #if canImport(Glibc)
            _ = Glibc.close(fd)
        #else
            _ = Darwin.close(fd)
        #endif
        fd = -1
    }
}
