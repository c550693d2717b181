import Foundation
import JSONCore
import TestSupport
import Testing

/// End-to-end checks of the `mr-replay` binary (built next to the test bundle).
///
/// Serialized: each test starts `mr-replay` processes, one at a time as before.
@Suite(.serialized, .enabled(if: hasBuiltBinary("mr-replay"), "needs the mr-replay binary next to the test bundle (swift build)"))
final class CommandLineTests {
    let dir: String
    init() throws { dir = try makeTempDir() }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    func run(_ args: [String], stdin: String? = nil, env: [String: String] = [:]) throws -> (code: Int32, out: String, err: String) {
        try runReplayBinary(args, in: dir, stdin: stdin, env: env)
    }

    let good = "{\"type\":\"page\",\"anonymousId\":\"a\",\"timestamp\":\"2024-01-01T00:00:00Z\"}\n"

    @Test func validateExitCodesAndJSONFromStdin() throws {
        let ok = try run(["validate", "--json", "-"], stdin: good + "\n")
        #expect(ok.code == 0, "\(ok.err)")
        let obj = try #require(try JSONValue(parsing: ok.out.trimmingCharacters(in: .whitespacesAndNewlines)).objectValue)
        #expect(obj["valid"] == .number(JSONNumber(1)))
        #expect(obj["blank"] == .number(JSONNumber(1)))
        let bad = try run(["validate", "-"], stdin: good + "oops\n")
        #expect(bad.code == 1)
        #expect(bad.out.contains("-:2: invalid_json: "), "\(bad.out)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/.mr-replay"))
        try writeFile(dir + "/bad.yaml", "batching:\n  max_evnts: 1\n")
        let cfg = try run(["validate", "--config", "bad.yaml", "-"], stdin: good)
        #expect(cfg.code == 2)
        #expect(cfg.err.contains("bad.yaml:2:3: unknown key 'batching.max_evnts'; did you mean 'batching.max_events'?"), "\(cfg.err)")
        #expect(try run(["validate", "missing.ndjson"]).code == 2)
        #expect(try run(["validate", "--no-such-flag", "-"]).code == 2)
    }

    /// A snapshot of an unknown version: `run` and `run --dry-run` exit 2 naming the file and the
    /// version, send nothing and leave the file unread; `validate` exits 1 with the reason.
    @Test func unknownSnapshotVersionExitCodes() throws {
        try writeFile(dir + "/queue.v1.json", "{\"events\":[" + good.dropLast() + "],\"version\":2}")
        let run1 = try run(["run", "queue.v1.json"])
        #expect(run1.code == 2, "\(run1.err)")
        #expect(run1.err.contains("queue.v1.json") && run1.err.contains("version 2"), "\(run1.err)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/.mr-replay/collected.ndjson"), "nothing was sent")
        #expect(try run(["run", "--dry-run", "queue.v1.json"]).code == 2)
        let check = try run(["validate", "queue.v1.json"])
        #expect(check.code == 1)
        #expect(check.out.contains("unsupported_snapshot"), "\(check.out)")
        let flag = try run(["validate", "--max-event-age", "soon", "queue.v1.json"])
        #expect(flag.code == 2)
        #expect(flag.err.contains("--max-event-age"), "\(flag.err)")
    }

    /// Options that cannot mean what they say are refused before anything is read or sent.
    @Test func misleadingOptionCombinationsAreRefused() throws {
        try writeFile(dir + "/in.ndjson", good)
        let output = try run(["run", "--output", "o.ndjson", "in.ndjson"])
        #expect(output.code == 2, "\(output.err)")
        #expect(output.err.contains("--output only applies with --dry-run"), "\(output.err)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/.mr-replay/report.json"), "nothing was sent")
        let sharded = try run(["run", "--dry-run", "--shard", "0/2", "in.ndjson"])
        #expect(sharded.code == 2, "\(sharded.err)")
        #expect(sharded.err.contains("--shard and --shards apply to real runs"), "\(sharded.err)")
    }

    /// `status` only needs the state directory: no write key.
    @Test func statusDoesNotNeedTheWriteKey() throws {
        try writeFile(dir + "/c.yaml", "ingestion:\n  host: https://x.example\n  write_key: ${K}\nstate_dir: st\n")
        try FileManager.default.createDirectory(atPath: dir + "/st", withIntermediateDirectories: true)
        let r = try run(["status", "--config", "c.yaml"])
        #expect(r.code == 0, "\(r.err)")
        #expect(!r.err.contains("no write key"), "\(r.err)")
    }

    @Test func dryRunToOutputFileAndSecretsNotPrinted() throws {
        try writeFile(dir + "/in.ndjson", good + "nope\n")
        try writeFile(dir + "/c.yaml", "ingestion:\n  host: https://x.example\n  write_key: ${K}\nstate_dir: st\n")
        let r = try run(["run", "--dry-run", "--config", "c.yaml", "--output", "out.ndjson", "in.ndjson"], env: ["K": "supersecret-1234"])
        #expect(r.code == 1, "a line would be dead-lettered: \(r.err)")
        #expect(!(r.out + r.err).contains("supersecret"))
        #expect(r.err.contains("****1234"), "\(r.err)")
        let out = try String(contentsOfFile: dir + "/out.ndjson", encoding: .utf8)
        #expect(out.split(separator: "\n").count == 1)
        let dead = try String(contentsOfFile: dir + "/st/dry-run-dead-letter.ndjson", encoding: .utf8)
        #expect(dead.contains("\"line\":2"))
        #expect(r.err.contains("dead letters: st/dry-run-dead-letter.ndjson"), "\(r.err)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/st/dead-letter.ndjson"), "the real file is left alone")
    }

    /// An `--output` that cannot be opened exits 2 naming the option and the path; one that
    /// cannot be written (a full device) names the output, the path and the system's reason.
    @Test func aDryRunOutputThatFailsNamesItself() throws {
        try writeFile(dir + "/in.ndjson", good)
        try writeFile(dir + "/c.yaml", "ingestion:\n  host: https://x.example\n  write_key: K\nstate_dir: st\n")
        try FileManager.default.createDirectory(atPath: dir + "/a-directory", withIntermediateDirectories: true)
        let unopenable = try run(["run", "--dry-run", "--config", "c.yaml", "--output", "a-directory", "in.ndjson"])
        #expect(unopenable.code == 2, "\(unopenable.err)")
        #expect(unopenable.err.contains("--output: cannot open a-directory: Is a directory"), "\(unopenable.err)")
        guard FileManager.default.fileExists(atPath: "/dev/full") else { return }
        let full = try run(["run", "--dry-run", "--config", "c.yaml", "--output", "/dev/full", "in.ndjson"])
        #expect(full.code != 0)
        #expect(full.err.contains("the dry run's output: cannot write /dev/full: No space left on device"), "\(full.err)")
    }

    @Test func shardByNeedsAShardAndTakesIdentityOrFile() throws {
        try writeFile(dir + "/in.ndjson", good)
        let alone = try run(["run", "--shard-by", "file", "in.ndjson"])
        #expect(alone.code == 2 && alone.err.contains("--shard-by applies with --shard K/N or --shards N"), "\(alone.err)")
        let bad = try run(["run", "--shard", "0/2", "--shard-by", "user", "in.ndjson"])
        #expect(bad.code == 2, "\(bad.err)")
        let byFile = try run(["run", "--shard", "0/1", "--shard-by", "file", "in.ndjson"])
        #expect(byFile.code == 0, "\(byFile.err)")
        #expect(byFile.err.contains("shard 0/1 by file: 1 input(s) of its own, 0 of other shards"), "\(byFile.err)")
        #expect(FileManager.default.fileExists(atPath: dir + "/.mr-replay/file-shard-0-of-1/report.json"))
    }
}
