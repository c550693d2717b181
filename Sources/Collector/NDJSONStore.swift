#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Appends accepted events to a file, one JSON object per line.
///
/// Each request's events go out in one `write`, so an accepted response means the lines are
/// in the file; `close` also `fsync`s.
actor NDJSONStore: EventStore {
    private var fd: Int32

    init(path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw CollectorStoreError(description: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        self.fd = fd
    }

    func append(_ events: [StoredEvent]) throws {
        guard fd >= 0 else { throw CollectorStoreError(description: "the NDJSON store is closed") }
        var out: [UInt8] = []
        out.reserveCapacity(events.reduce(0) { $0 + $1.json.count + 1 })
        for e in events {
            out.append(contentsOf: e.json)
            out.append(0x0A)
        }
        try out.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                // `raw` is not empty (done < count), so `baseAddress` is non-nil.
                let n = write(fd, raw.baseAddress! + done, raw.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw CollectorStoreError(description: "write failed: \(String(cString: strerror(errno)))")
                }
                done += n
            }
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
