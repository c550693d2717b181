import Foundation
import JSONCore
import TestSupport
import Testing

/// `mr-replay dead-letter list|retry` through the binary, against the embedded collector.
@Suite(.serialized, .enabled(if: hasBuiltBinary("mr-replay"), "needs the mr-replay binary next to the test bundle (swift build)"))
final class DeadLetterRetryCommandLineTests {
    let dir: String
    init() throws { dir = try makeTempDir() }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    @Test func listAndRetryExitCodes() throws {
        let pad = String(repeating: "y", count: 1_500)
        let lines = (0..<6).map {
            #"{"type":"page","anonymousId":"a","messageId":"c-\#($0)","properties":{"p":"\#($0 % 2 == 0 ? pad : "")"},"timestamp":"2024-05-01T10:00:00Z"}"#
        }
        try writeFile(dir + "/in.ndjson", lines.joined(separator: "\n") + "\n")
        try writeFile(dir + "/cap.yaml", "batching: { max_event_bytes: 1000 }\nstate_dir: \(dir)/state\n")
        try writeFile(dir + "/fixed.yaml", "batching: { max_event_bytes: 10000 }\nstate_dir: \(dir)/state\n")
        let run = try runReplayBinary(["run", "--quiet", "--config", "cap.yaml", "in.ndjson"], in: dir)
        #expect(run.code == 1, "\(run.err)")
        let list = try runReplayBinary(["dead-letter", "list", "--config", "cap.yaml"], in: dir)
        #expect(list.code == 0, "\(list.err)")
        #expect(list.out.hasPrefix("3 dead-lettered events in 1 file\n  too_large  3\n"), "\(list.out)")
        let json = try runReplayBinary(["dead-letter", "list", "--state-dir", "state", "--json", "--reason", "nope"], in: dir)
        #expect(try JSONValue(parsing: json.out).objectValue?["total"] == .number(JSONNumber(0)), "\(json.out) \(json.err)")
        let retry = try runReplayBinary(["dead-letter", "retry", "--config", "fixed.yaml"], in: dir)
        #expect(retry.code == 0, "\(retry.err)")
        #expect(retry.err.contains("3 sent again: 3 delivered (removed)"), "\(retry.err)")
        let after = try runReplayBinary(["dead-letter", "list", "--config", "fixed.yaml"], in: dir)
        #expect(after.out.hasPrefix("0 dead-lettered events"), "\(after.out)")
        let collected = try String(contentsOfFile: dir + "/state/collected.ndjson", encoding: .utf8)
        #expect(collected.split(separator: "\n").count == 6)
    }
}
