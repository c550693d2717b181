import Foundation
import JSONCore
import TestSupport
import Testing

/// `--since`/`--until`/`--limit` through the `mr-replay` binary: exit codes and messages.
@Suite(.serialized, .enabled(if: hasBuiltBinary("mr-replay"), "needs the mr-replay binary next to the test bundle (swift build)"))
final class TimeWindowCommandLineTests {
    let dir: String
    init() throws { dir = try makeTempDir() }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    func collected() -> Int {
        ((try? String(contentsOfFile: dir + "/.mr-replay/collected.ndjson", encoding: .utf8)) ?? "").split(separator: "\n").count
    }

    @Test func limitExitsZeroAndAnotherWindowExitsTwo() throws {
        let lines = (0..<10).map { #"{"type":"page","anonymousId":"a","messageId":"c-\#($0)","timestamp":"2024-05-01T10:0\#($0):00Z"}"# }
        try writeFile(dir + "/in.ndjson", lines.joined(separator: "\n") + "\n")
        let bad = try runReplayBinary(["run", "--since", "yesterday", "in.ndjson"], in: dir)
        #expect(bad.code == 2 && bad.err.contains("--since expects an ISO 8601 time"), "\(bad.err)")
        #expect(try runReplayBinary(["run", "--limit", "0", "in.ndjson"], in: dir).code == 2)
        let limited = try runReplayBinary(["run", "--quiet", "--since", "2024-05-01T10:02", "--limit", "3", "in.ndjson"], in: dir)
        #expect(limited.code == 0, "\(limited.err)")
        #expect(limited.err.contains("--limit 3") && limited.err.contains("2 filtered"), "\(limited.err)")
        #expect(collected() == 3)
        let other = try runReplayBinary(["run", "--quiet", "--until", "2024-05-01T10:08Z", "in.ndjson"], in: dir)
        #expect(other.code == 2, "\(other.err)")
        #expect(other.err.contains("since 2024-05-01T10:02:00.000Z") && other.err.contains("until 2024-05-01T10:08:00.000Z"), "\(other.err)")
        #expect(other.err.contains("--fresh"), "\(other.err)")
        #expect(collected() == 3, "nothing was sent")
        let rest = try runReplayBinary(["run", "--quiet", "in.ndjson"], in: dir)
        #expect(rest.code == 0, "\(rest.err)")
        #expect(collected() == 8, "the stored window is kept: minutes 2-9")
    }
}
