import Foundation
import Synchronization
import SystemIO

/// The local file system, with a test's say over each atomic write: `beforeRename` sees the
/// target and its new bytes while the target still holds its old content. When it throws, the
/// write ends as it would for a process killed between writing the new content and renaming it:
/// the new bytes are left complete in a temporary file beside the target (where
/// ``LocalFileSystem`` writes them), the target is untouched, and the error is passed on.
package final class CrashableFileSystem: FileSystem {
    private let beforeRename: @Sendable (_ path: String, _ bytes: [UInt8]) throws -> Void
    private let local = LocalFileSystem()
    private let targets = Mutex<[String]>([])

    /// A file system that calls `beforeRename` for every atomic write.
    package init(beforeRename: @escaping @Sendable (_ path: String, _ bytes: [UInt8]) throws -> Void) {
        self.beforeRename = beforeRename
    }

    /// The targets of the atomic writes so far, in order.
    package var written: [String] { targets.withLock { $0 } }

    package func writeAtomically(_ path: String, _ bytes: [UInt8]) throws {
        targets.withLock { $0.append(path) }
        do {
            try beforeRename(path, bytes)
        } catch {
            let leftover = LocalFileSystem.temporaryPath(for: path)
            guard FileManager.default.createFile(atPath: leftover, contents: Data(bytes)) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: leftover])
            }
            throw error
        }
        try local.writeAtomically(path, bytes)
    }

    package func read(_ path: String) throws -> [UInt8]? { try local.read(path) }
    package func createDirectory(_ path: String) throws { try local.createDirectory(path) }
    package func remove(_ path: String) throws { try local.remove(path) }
    package func move(_ from: String, to: String) throws { try local.move(from, to: to) }
}
