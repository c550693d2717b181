import Foundation
import TestSupport
import Testing

/// One run at a time per state directory: a second run says at once who holds it, and waits
/// for it (or, with `--no-wait`, exits 75).
@Suite(.serialized, .enabled(if: hasBuiltBinary("mr-replay"), "needs the mr-replay binary next to the test bundle (swift build)"))
final class StateLockCommandLineTests {
    let dir: String
    init() throws {
        dir = try makeTempDir()
        try writeFile(dir + "/in.ndjson", #"{"type":"page","anonymousId":"a","timestamp":"2024-01-01T00:00:00Z"}"# + "\n")
    }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    /// Takes the state directory's lock as another run would, recording `holder` as its owner.
    func holdLock(_ holder: String) throws -> Int32 {
        try FileManager.default.createDirectory(atPath: dir + "/.mr-replay", withIntermediateDirectories: true)
        let fd = open(dir + "/.mr-replay/run.lock", O_RDWR | O_CREAT, 0o644)
        #expect(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0)
        let text = Array(holder.utf8)
        _ = text.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
        return fd
    }

    @Test func noWaitExits75NamingTheHolder() throws {
        let fd = try holdLock("pid 4242 on cron-host, started 2026-11-25T03:15:00Z\n")
        defer { close(fd) }
        let r = try runReplayBinary(["run", "--no-wait", "in.ndjson"], in: dir)
        #expect(r.code == 75, "\(r.err)")
        #expect(r.err.contains("another mr-replay run (pid 4242 on cron-host, started 2026-11-25T03:15:00Z) holds the state directory"), "\(r.err)")
        #expect(r.err.contains("--no-wait"))
        #expect(!FileManager.default.fileExists(atPath: dir + "/.mr-replay/report.json"), "nothing ran")
    }

    @Test func aSecondRunSaysAtOnceThatItWaitsThenRunsWhenTheFirstEnds() async throws {
        let fd = try holdLock("pid 4243 on cron-host, started 2026-11-25T03:15:00Z\n")
        let p = Process()
        p.executableURL = try builtBinary("mr-replay")
        p.arguments = ["run", "in.ndjson"]
        p.currentDirectoryURL = URL(fileURLWithPath: dir)
        p.environment = [:]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        let said = AsyncStream<String> { continuation in
            err.fileHandleForReading.readabilityHandler = { handle in
                let data = handle.availableData
                if data.isEmpty {
                    handle.readabilityHandler = nil
                    continuation.finish()
                } else {
                    continuation.yield(String(decoding: data, as: UTF8.self))
                }
            }
        }
        try p.run()
        var text = ""
        for await chunk in said {
            text += chunk
            if text.contains("waiting for it to end") { break }
        }
        #expect(text.contains("pid 4243 on cron-host") && text.contains("waiting for it to end"), "\(text)")
        #expect(p.isRunning, "it waits while the lock is held")
        close(fd)  // the first run ends
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let holder = try String(contentsOfFile: dir + "/.mr-replay/run.lock", encoding: .utf8)
        #expect(holder.hasPrefix("pid \(p.processIdentifier) on "), "the second run recorded itself: \(holder)")
    }
}
