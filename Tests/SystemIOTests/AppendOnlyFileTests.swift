import Foundation
import SystemIO
import Testing

/// `AppendOnlyFile`, the package's one way of appending to a log: where appending starts, what
/// `size` says, and the errors that name the file.
@Suite struct AppendOnlyFileTests {
    let dir = NSTemporaryDirectory() + "append-" + UUID().uuidString.lowercased()

    func contents(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    @Test func appendsAfterWhatTheFileHoldsAndCountsIt() throws {
        let path = dir + "/a/b/log.ndjson"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let first = try AppendOnlyFile(path: path, createDirectory: true)
        try first.append(Array("{\"n\":1}\n".utf8))
        #expect(first.size == 8)
        try first.close()
        try first.close()  // a second close does nothing
        let second = try AppendOnlyFile(path: path)
        #expect(second.size == 8)
        try second.append(Array("{\"n\":2}\n".utf8))
        #expect(second.size == 16)
        #expect(try contents(path) == "{\"n\":1}\n{\"n\":2}\n")
    }

    @Test func aLastLineCutShortIsCutAwayWhenAsked() throws {
        let path = dir + "/journal.ndjson"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("whole\nalso whole\nhalf a li".utf8).write(to: URL(fileURLWithPath: path))
        let file = try AppendOnlyFile(path: path, start: .cutPartialLine)
        #expect(file.size == 17)
        try file.append(Array("next\n".utf8))
        #expect(try contents(path) == "whole\nalso whole\nnext\n")
        try Data("no newline at all".utf8).write(to: URL(fileURLWithPath: path))
        #expect(try AppendOnlyFile(path: path, start: .cutPartialLine).size == 0)
        #expect(try contents(path) == "")
    }

    @Test func emptyStartsAtZero() throws {
        let path = dir + "/out.ndjson"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("old output\n".utf8).write(to: URL(fileURLWithPath: path))
        let file = try AppendOnlyFile(path: path, start: .empty)
        try file.append(Array("new\n".utf8))
        #expect(try contents(path) == "new\n")
    }

    @Test func failuresNameTheFileAndWhatFailed() throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(throws: AppendOnlyFile.Failure(path: dir, operation: "open", code: EISDIR)) {
            _ = try AppendOnlyFile(path: dir)
        }
        let file = try AppendOnlyFile(path: dir + "/f")
        try file.close()
        let closed = #expect(throws: AppendOnlyFile.Failure.self) { try file.append(Array("x".utf8)) }
        #expect(closed?.description == "cannot write \(dir)/f: Bad file descriptor")
    }

    @Test func aLentDescriptorStaysOpen() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        let file = AppendOnlyFile(descriptor: fds[1], name: "the pipe")
        try file.append(Array("ok".utf8))
        try file.close()
        #expect(fcntl(fds[1], F_GETFD) != -1, "close() leaves a lent descriptor open")
        close(fds[1])
        var got = [UInt8](repeating: 0, count: 2)
        #expect(read(fds[0], &got, 2) == 2)
        #expect(got == Array("ok".utf8))
    }
}
