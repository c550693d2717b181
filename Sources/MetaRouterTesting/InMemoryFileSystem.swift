import Foundation
import MetaRouterDelivery
import Synchronization
import SystemIO

/// A ``FileSystem`` held in memory, for the disk queue and the file-backed identity store in
/// tests: nothing touches the disk. It has no directories: every directory exists.
public final class InMemoryFileSystem: FileSystem {
    private let files = Mutex<[String: [UInt8]]>([:])

    /// Creates an empty in-memory file system.
    public init() {}

    /// The bytes at `path`, or nil when there is no such file.
    public func read(_ path: String) throws -> [UInt8]? { files.withLock { $0[path] } }

    /// Replaces the file at `path` with `bytes` in one step.
    public func writeAtomically(_ path: String, _ bytes: [UInt8]) throws { files.withLock { $0[path] = bytes } }

    /// Nothing to do: every directory exists.
    public func createDirectory(_ path: String) throws {}

    /// Removes the file at `path`, if there is one.
    public func remove(_ path: String) throws { _ = files.withLock { $0.removeValue(forKey: path) } }

    /// Renames `from` to `to`; throws when `to` exists or `from` does not.
    public func move(_ from: String, to: String) throws {
        try files.withLock { files in
            guard files[to] == nil, let bytes = files.removeValue(forKey: from) else {
                throw CocoaError(.fileWriteFileExists)
            }
            files[to] = bytes
        }
    }
}
