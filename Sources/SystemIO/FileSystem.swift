import Foundation

/// The file operations the engine needs, so tests can substitute an in-memory file system (or
/// one that fails where a test wants it to).
public protocol FileSystem: Sendable {
    /// The file's bytes, or `nil` when it does not exist.
    func read(_ path: String) throws -> [UInt8]?
    /// Replaces the file's content atomically and durably: readers see the old or the new bytes,
    /// never a mix, and once this returns the new bytes survive a crash. The file's directory
    /// must exist (see ``createDirectory(_:)``). Errors name `path`; when one is thrown the file
    /// holds its old content (or, when only making the replacement durable failed, the new one).
    func writeAtomically(_ path: String, _ bytes: [UInt8]) throws
    /// Creates the directory `path` and any missing parents; nothing when it exists.
    func createDirectory(_ path: String) throws
    /// Removes the file if it exists.
    func remove(_ path: String) throws
    /// Renames the file at `from` to `to`, which must not exist (it is never overwritten).
    func move(_ from: String, to: String) throws
}

extension FileSystem {
    /// Creates the directory that holds `path` (and its missing parents), for a first
    /// ``writeAtomically(_:_:)`` into a directory that may not exist yet.
    package func createDirectory(containing path: String) throws {
        try createDirectory(LocalFileSystem.directory(of: path))
    }
}

/// The real, local file system.
public struct LocalFileSystem: FileSystem {
    /// Creates the local file system.
    public init() {}

    public func read(_ path: String) throws -> [UInt8]? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The package's one atomic file write. The bytes go to a new temporary file in the same
    /// directory (``temporaryPath(for:)``), which is synced, then renamed over `path`; then the
    /// directory is synced, so that the rename survives a crash too. When a step before the
    /// rename fails, the temporary file is removed and `path` keeps its old content; a crash can
    /// leave the temporary file behind (a dot file, see ``temporaryPath(for:)``), never a cut
    /// `path`. A failure to sync the directory is thrown too, saying that `path` was replaced.
    public func writeAtomically(_ path: String, _ bytes: [UInt8]) throws {
        let temporary = Self.temporaryPath(for: path)
        try Self.writeSynced(bytes, to: temporary, replacing: path)
        guard rename(temporary, path) == 0 else {
            let error = FileSystemError(path: path, errno: errno, "cannot write \(path): cannot rename \(temporary) over it")
            unlink(temporary)
            throw error
        }
        try Self.syncDirectory(of: path)
    }

    public func createDirectory(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    public func remove(_ path: String) throws {
        guard unlink(path) == 0 || errno == ENOENT else {
            throw FileSystemError(path: path, errno: errno, "cannot remove \(path)")
        }
    }

    public func move(_ from: String, to: String) throws {
        // moveItem refuses an existing destination, and renames within a file system.
        try FileManager.default.moveItem(atPath: from, toPath: to)
    }

    /// Where ``writeAtomically(_:_:)`` writes the new content of `path` before the rename:
    /// `<directory>/.<name>.<8 random hex digits>.tmp`. The same directory, so the rename is
    /// atomic; a dot file ending in `.tmp`, so listings and readers that pick files by name (the
    /// textfile collector reads `*.prom`; the dead-letter commands read `<name>.<N>.<ext>`)
    /// pass it by.
    package static func temporaryPath(for path: String) -> String {
        let hex = String(UInt32.random(in: .min ... .max), radix: 16)
        let name = (path as NSString).lastPathComponent
        return directory(of: path) + "/." + name + "." + String(repeating: "0", count: 8 - hex.count) + hex + ".tmp"
    }

    /// The directory that holds `path` (`.` for a bare file name).
    package static func directory(of path: String) -> String {
        let directory = (path as NSString).deletingLastPathComponent
        return directory.isEmpty ? "." : directory
    }

    /// Writes `bytes` to the new file `temporary` and syncs it; removes it again when that fails.
    private static func writeSynced(_ bytes: [UInt8], to temporary: String, replacing path: String) throws {
        // O_EXCL: a file of the same name (another writer's, or a leftover) is never written into.
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard fd >= 0 else {
            throw FileSystemError(path: path, errno: errno, "cannot write \(path): cannot create \(temporary)")
        }
        var failure: FileSystemError?
        do {
            try writeAll(bytes, to: fd)
        } catch {
            failure = FileSystemError(path: path, errno: nil, "cannot write \(path): cannot write \(temporary): \(error)")
        }
        if failure == nil, fsync(fd) != 0 {
            failure = FileSystemError(path: path, errno: errno, "cannot write \(path): cannot sync \(temporary)")
        }
        if close(fd) != 0, failure == nil {
            failure = FileSystemError(path: path, errno: errno, "cannot write \(path): cannot close \(temporary)")
        }
        if let failure {
            unlink(temporary)
            throw failure
        }
    }

    /// Syncs the directory that holds `path`, which makes a rename in it durable.
    private static func syncDirectory(of path: String) throws {
        let directory = directory(of: path)
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            throw FileSystemError(
                path: path, errno: errno, "\(path) was replaced, but its directory \(directory) cannot be opened to sync it")
        }
        defer { close(fd) }
        // EINVAL: this file system cannot sync a directory; there is nothing more to do.
        guard fsync(fd) == 0 || errno == EINVAL else {
            throw FileSystemError(
                path: path, errno: errno, "\(path) was replaced, but its directory \(directory) cannot be synced")
        }
    }
}

/// A ``LocalFileSystem`` operation failed; the description names the file.
public struct FileSystemError: Error, CustomStringConvertible, Sendable {
    /// The file the operation was for.
    public let path: String
    /// What failed and why, e.g. `cannot write /s/report.json: cannot create
    /// /s/.report.json.0a1b2c3d.tmp: No such file or directory`.
    public let description: String

    /// A failure for `path` described by `message`, followed by the text of `errno` (nil:
    /// `message` already says why). `errno` comes first so that it is read before anything else
    /// is evaluated.
    init(path: String, errno code: Int32?, _ message: String) {
        self.path = path
        description = message + (code.map { ": " + String(cString: strerror($0)) } ?? "")
    }
}
