import Foundation
import MetaRouter
import Testing

/// `LocalFileSystem`: the package's one atomic file write, and removal.
@Suite final class LocalFileSystemTests {
    let dir: String
    let fileSystem = LocalFileSystem()

    init() throws {
        dir = NSTemporaryDirectory() + "mr-fs-" + UUID().uuidString.lowercased()
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: dir) }

    func names(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
    }

    @Test func theTargetIsReplacedWhole() throws {
        let path = dir + "/state.json"
        try fileSystem.writeAtomically(path, Array(repeating: UInt8(ascii: "o"), count: 100_000))
        let new = Array("{\"new\":true}\n".utf8)
        try fileSystem.writeAtomically(path, new)
        #expect(try fileSystem.read(path) == new, "nothing of the longer old content is left")
        #expect(try names(dir) == ["state.json"], "no temporary file is left")
        try fileSystem.writeAtomically(path, [])
        #expect(try fileSystem.read(path) == [])
    }

    /// The rename fails (a directory is in the target's place): the target keeps what it held,
    /// and the temporary file, already written and synced, is removed.
    @Test func aFailureBeforeTheRenameLeavesTheOldContentAndNoTemporaryFile() throws {
        let path = dir + "/in-the-way"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        try Data("old".utf8).write(to: URL(fileURLWithPath: path + "/kept"))
        let error = try #require(throws: FileSystemError.self) { try fileSystem.writeAtomically(path, Array("new".utf8)) }
        #expect(error.path == path)
        #expect(error.description.hasPrefix("cannot write \(path): cannot rename "), "\(error)")
        #expect(try names(dir) == ["in-the-way"], "no temporary file is left")
        #expect(try names(path) == ["kept"])
        #expect(try fileSystem.read(path + "/kept") == Array("old".utf8))
    }

    @Test func writingIntoAMissingDirectoryFailsNamingThePath() throws {
        let path = dir + "/missing/state.json"
        let error = try #require(throws: FileSystemError.self) { try fileSystem.writeAtomically(path, Array("x".utf8)) }
        #expect(error.path == path)
        #expect(error.description.contains(path), "\(error)")
        #expect(error.description.hasSuffix(String(cString: strerror(ENOENT))), "\(error)")
        #expect(try names(dir).isEmpty, "nothing is created")
    }

    @Test func theTemporaryFileIsAHiddenSiblingEndingInTmp() {
        let path = dir + "/metrics.prom"
        let first = LocalFileSystem.temporaryPath(for: path)
        let name = (first as NSString).lastPathComponent
        #expect((first as NSString).deletingLastPathComponent == dir, "same directory, so the rename is atomic")
        #expect(name.hasPrefix(".metrics.prom.") && name.hasSuffix(".tmp"), "\(name)")
        #expect(name.count == ".metrics.prom.".count + 8 + ".tmp".count, "\(name)")
        #expect(LocalFileSystem.temporaryPath(for: path) != first, "a new name for each write")
        #expect(LocalFileSystem.temporaryPath(for: "bare").hasPrefix("./.bare."))
    }

    @Test func createDirectoryThenWrite() throws {
        let path = dir + "/a/b/state.json"
        try fileSystem.createDirectory(containing: path)
        try fileSystem.createDirectory(containing: path)  // exists: nothing to do
        try fileSystem.writeAtomically(path, Array("x".utf8))
        #expect(try fileSystem.read(path) == Array("x".utf8))
    }

    @Test func removeIgnoresAMissingFileAndNamesTheFileItCannotRemove() throws {
        try fileSystem.remove(dir + "/never-written")
        let path = dir + "/state.json"
        try fileSystem.writeAtomically(path, Array("x".utf8))
        try fileSystem.remove(path)
        #expect(try fileSystem.read(path) == nil)
        let directory = dir + "/a-directory"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let error = try #require(throws: FileSystemError.self) { try fileSystem.remove(directory) }
        #expect(error.description.hasPrefix("cannot remove \(directory): "), "\(error)")
    }
}
