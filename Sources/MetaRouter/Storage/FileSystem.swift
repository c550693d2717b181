import Foundation
import Synchronization

/// The file operations the engine needs, so tests can substitute an in-memory file system.
public protocol FileSystem: Sendable {
    /// The file's bytes, or `nil` when it does not exist.
    func read(_ path: String) throws -> [UInt8]?
    /// Replaces the file's content atomically: readers see the old or the new bytes, never a mix.
    func writeAtomically(_ path: String, _ bytes: [UInt8]) throws
    /// Removes the file if it exists.
    func remove(_ path: String) throws
    /// Renames the file at `from` to `to`, which must not exist (it is never overwritten).
    func move(_ from: String, to: String) throws
}

/// The real, local file system.
public struct LocalFileSystem: FileSystem {
    /// Creates the local file system.
    public init() {}

    public func read(_ path: String) throws -> [UInt8]? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    public func writeAtomically(_ path: String, _ bytes: [UInt8]) throws {
        let url = URL(fileURLWithPath: path)
        try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        // Data.write(.atomic) writes a temporary file in the same directory and renames it over the target.
        try Data(bytes).write(to: url, options: .atomic)
    }

    public func remove(_ path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        try FileManager.default.removeItem(atPath: path)
    }

    public func move(_ from: String, to: String) throws {
        // moveItem refuses an existing destination, and renames within a file system.
        try FileManager.default.moveItem(atPath: from, toPath: to)
    }
}
