import Foundation
import JSONCore
import XCTest

/// End-to-end checks of the `mr-replay` binary (built next to the test bundle).
final class CommandLineTests: XCTestCase {
    var dir = ""
    override func setUpWithError() throws { dir = try makeTempDir() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    func binary() throws -> URL {
        var dirs = Bundle.allBundles.flatMap { [$0.bundleURL, $0.bundleURL.deletingLastPathComponent()] }
        dirs.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        for d in dirs {
            let url = d.appendingPathComponent("mr-replay")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw XCTSkip("mr-replay binary not found next to the test bundle")
    }

    func run(_ args: [String], stdin: String? = nil, env: [String: String] = [:]) throws -> (code: Int32, out: String, err: String) {
        let p = Process()
        p.executableURL = try binary()
        p.arguments = args
        p.currentDirectoryURL = URL(fileURLWithPath: dir)
        p.environment = env
        let out = Pipe(), err = Pipe(), input = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = input
        try p.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }

    let good = "{\"type\":\"page\",\"anonymousId\":\"a\",\"timestamp\":\"2024-01-01T00:00:00Z\"}\n"

    func testValidateExitCodesAndJSONFromStdin() throws {
        let ok = try run(["validate", "--json", "-"], stdin: good + "\n")
        XCTAssertEqual(ok.code, 0, ok.err)
        let obj = try JSONValue(parsing: ok.out.trimmingCharacters(in: .whitespacesAndNewlines)).objectValue!
        XCTAssertEqual(obj["valid"], .number(JSONNumber(1)))
        XCTAssertEqual(obj["blank"], .number(JSONNumber(1)))
        let bad = try run(["validate", "-"], stdin: good + "oops\n")
        XCTAssertEqual(bad.code, 1)
        XCTAssertTrue(bad.out.contains("-:2: invalid_json: "), bad.out)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/.mr-replay"))
        try writeFile(dir + "/bad.yaml", "batching:\n  max_evnts: 1\n")
        let cfg = try run(["validate", "--config", "bad.yaml", "-"], stdin: good)
        XCTAssertEqual(cfg.code, 2)
        XCTAssertTrue(cfg.err.contains("bad.yaml:2:3: unknown key 'batching.max_evnts'; did you mean 'batching.max_events'?"), cfg.err)
        XCTAssertEqual(try run(["validate", "missing.ndjson"]).code, 2)
        XCTAssertEqual(try run(["validate", "--no-such-flag", "-"]).code, 2)
    }

    /// A snapshot of an unknown version: `run` and `run --dry-run` exit 2 naming the file and the
    /// version, send nothing and leave the file unread; `validate` exits 1 with the reason.
    func testUnknownSnapshotVersionExitCodes() throws {
        try writeFile(dir + "/queue.v1.json", "{\"events\":[" + good.dropLast() + "],\"version\":2}")
        let run1 = try run(["run", "queue.v1.json"])
        XCTAssertEqual(run1.code, 2, run1.err)
        XCTAssertTrue(run1.err.contains("queue.v1.json") && run1.err.contains("version 2"), run1.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/.mr-replay/collected.ndjson"), "nothing was sent")
        XCTAssertEqual(try run(["run", "--dry-run", "queue.v1.json"]).code, 2)
        let check = try run(["validate", "queue.v1.json"])
        XCTAssertEqual(check.code, 1)
        XCTAssertTrue(check.out.contains("unsupported_snapshot"), check.out)
        let flag = try run(["validate", "--max-event-age", "soon", "queue.v1.json"])
        XCTAssertEqual(flag.code, 2)
        XCTAssertTrue(flag.err.contains("--max-event-age"), flag.err)
    }

    /// Options that cannot mean what they say are refused before anything is read or sent.
    func testMisleadingOptionCombinationsAreRefused() throws {
        try writeFile(dir + "/in.ndjson", good)
        let output = try run(["run", "--output", "o.ndjson", "in.ndjson"])
        XCTAssertEqual(output.code, 2, output.err)
        XCTAssertTrue(output.err.contains("--output only applies with --dry-run"), output.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/.mr-replay/report.json"), "nothing was sent")
        let sharded = try run(["run", "--dry-run", "--shard", "0/2", "in.ndjson"])
        XCTAssertEqual(sharded.code, 2, sharded.err)
        XCTAssertTrue(sharded.err.contains("--shard and --shards apply to real runs"), sharded.err)
    }

    /// `status` only needs the state directory: no write key.
    func testStatusDoesNotNeedTheWriteKey() throws {
        try writeFile(dir + "/c.yaml", "ingestion:\n  host: https://x.example\n  write_key: ${K}\nstate_dir: st\n")
        try FileManager.default.createDirectory(atPath: dir + "/st", withIntermediateDirectories: true)
        let r = try run(["status", "--config", "c.yaml"])
        XCTAssertEqual(r.code, 0, r.err)
        XCTAssertFalse(r.err.contains("no write key"), r.err)
    }

    func testDryRunToOutputFileAndSecretsNotPrinted() throws {
        try writeFile(dir + "/in.ndjson", good + "nope\n")
        try writeFile(dir + "/c.yaml", "ingestion:\n  host: https://x.example\n  write_key: ${K}\nstate_dir: st\n")
        let r = try run(["run", "--dry-run", "--config", "c.yaml", "--output", "out.ndjson", "in.ndjson"], env: ["K": "supersecret-1234"])
        XCTAssertEqual(r.code, 1, "a line would be dead-lettered: \(r.err)")
        XCTAssertFalse((r.out + r.err).contains("supersecret"))
        XCTAssertTrue(r.err.contains("****1234"), r.err)
        let out = try String(contentsOfFile: dir + "/out.ndjson", encoding: .utf8)
        XCTAssertEqual(out.split(separator: "\n").count, 1)
        let dead = try String(contentsOfFile: dir + "/st/dry-run-dead-letter.ndjson", encoding: .utf8)
        XCTAssertTrue(dead.contains("\"line\":2"))
        XCTAssertTrue(r.err.contains("dead letters: st/dry-run-dead-letter.ndjson"), r.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/st/dead-letter.ndjson"), "the real file is left alone")
    }
}
