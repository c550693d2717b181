import Foundation
import Synchronization

/// Where a partition is written and read: a local directory (``LocalPartitionStore``) or an S3
/// prefix (``S3PartitionStore``). Names are ``PartitionLayout``'s.
///
/// Every method blocks: the partition worker and a run's reader call them from their own
/// threads, never from Swift's concurrency pool.
package protocol PartitionStore: Sendable {
    /// The location as the user gave it (`/data/partitions`, `s3://bucket/prefix/`).
    var location: String { get }
    /// A local directory for the files a worker writes before they are published.
    var scratchDirectory: String { get }
    /// The worker that wrote through this store is done: a scratch directory that is the worker's
    /// own goes, with whatever a segment cut short left in it (a later run writes that again).
    func workerEnded()
    /// Makes the complete local file `file` the object `name` (visible whole or not at all);
    /// the file is gone afterwards.
    func publish(file: String, as name: String) throws
    /// Writes `bytes` as the object `name`, whole or not at all.
    func put(_ bytes: [UInt8], as name: String) throws
    /// The bytes of the object `name`, or nil when there is none.
    func get(_ name: String) throws -> [UInt8]?
    /// The size of the object `name`, or nil when there is none.
    func size(of name: String) throws -> UInt64?
    /// The names of the objects under the folder `prefix` (ending in `/`), sorted.
    func list(_ prefix: String) throws -> [String]
    /// A stream of the object `name`'s bytes, of `size` bytes.
    func open(_ name: String, size: UInt64) throws -> any ByteStream
}

/// Why a partition store failed: what it was doing and why.
struct PartitionStoreError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs `operation` on Swift's concurrency pool and waits for it, from a thread of its own
/// (the worker's or the reader's), never from the pool itself, which this would starve.
func waitFor<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) throws -> T {
    let result = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let outcome: Result<T, any Error>
        do { outcome = .success(try await operation()) } catch { outcome = .failure(error) }
        result.withLock { $0 = outcome }
        done.signal()
    }
    done.wait()
    return try result.withLock { $0! }.get()
}
