import Foundation
@_spi(PerLine) import MetaRouterDelivery
import SystemIO

/// A partition in a local directory (or a shared file system): objects are files, published by
/// `rename(2)` from `.tmp/` in the same directory after a sync, so a file under its final name
/// is always whole, even after a power loss.
package struct LocalPartitionStore: PartitionStore {
    /// The directory's absolute path.
    package let location: String

    /// A store in `directory`, which is created if needed.
    package init(directory: String) throws {
        location = URL(fileURLWithPath: directory).standardizedFileURL.path
        do {
            try FileManager.default.createDirectory(atPath: location + "/.tmp", withIntermediateDirectories: true)
        } catch {
            throw PartitionStoreError("cannot create the partition directory \(location): \(error.localizedDescription)")
        }
    }

    package var scratchDirectory: String { location + "/.tmp" }

    /// Keeps `.tmp/`: every worker of the partition writes there, each under names of its own.
    package func workerEnded() {}

    private func path(_ name: String) -> String { location + "/" + name }

    package func publish(file: String, as name: String) throws {
        let target = path(name)
        do {
            try LocalFileSystem().createDirectory(containing: target)
            try Self.sync(file)
            try LocalFileSystem().move(file, to: target)
        } catch {
            throw PartitionStoreError("cannot publish \(target): \(error)")
        }
    }

    package func put(_ bytes: [UInt8], as name: String) throws {
        let target = path(name)
        do {
            try LocalFileSystem().createDirectory(containing: target)
            try LocalFileSystem().writeAtomically(target, bytes)
        } catch {
            throw PartitionStoreError("cannot write \(target): \(error)")
        }
    }

    package func get(_ name: String) throws -> [UInt8]? {
        do {
            return try LocalFileSystem().read(path(name))
        } catch {
            throw PartitionStoreError("cannot read \(path(name)): \(error)")
        }
    }

    package func size(of name: String) throws -> UInt64? {
        (try? FileManager.default.attributesOfItem(atPath: path(name)))?[.size] as? UInt64
    }

    package func list(_ prefix: String) throws -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path(prefix))) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { prefix + $0 }
    }

    package func open(_ name: String, size: UInt64) throws -> any ByteStream {
        let fd = Foundation.open(path(name), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw PartitionStoreError("cannot open \(path(name)): \(String(cString: strerror(errno)))") }
        return FileDescriptorStream(fd: fd, ownsDescriptor: true, path: path(name))
    }

    /// Syncs `file`'s bytes to disk.
    static func sync(_ file: String) throws {
        let fd = Foundation.open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }
}
