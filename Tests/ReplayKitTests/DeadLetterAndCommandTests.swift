import Foundation
import JSONCore
import XCTest
@testable import ReplayKit

final class DeadLetterAndCommandTests: XCTestCase {
    var dir = ""
    override func setUpWithError() throws { dir = try makeTempDir() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    func testRecordsUseRawOrBase64() throws {
        let w = try DeadLetterWriter(path: dir + "/state/dead-letter.ndjson")
        try w.write(reason: "invalid_json", detail: "d", source: "in.ndjson", line: 3, raw: Array("{\"a\":\n".utf8))
        try w.write(reason: "invalid_utf8", detail: "d2", source: "in.ndjson", line: 4, raw: [0xFF, 0x41])
        try w.close()
        let lines = try String(contentsOfFile: dir + "/state/dead-letter.ndjson", encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 2)
        let a = try JSONValue(parsing: String(lines[0])).objectValue!
        XCTAssertEqual(a["reason"], .string("invalid_json"))
        XCTAssertEqual(a["source"], .string("in.ndjson"))
        XCTAssertEqual(a["line"], .number(JSONNumber(3)))
        XCTAssertEqual(a["raw"], .string("{\"a\":\n"))
        let b = try JSONValue(parsing: String(lines[1])).objectValue!
        XCTAssertNil(b["raw"])
        XCTAssertEqual(b["raw_base64"], .string(Data([0xFF, 0x41]).base64EncodedString()))
    }

    func sampleFile() throws -> String {
        let text = """
            {"type":"identify","anonymousId":"A","userId":"U","timestamp":"2024-01-01T00:00:00Z"}

            {"type":"track","anonymousId":"A","timestamp":"2024-01-01T00:00:00Z"}
            nope
            {"type":"track","event":"E","anonymousId":"A","timestamp":"2024-01-01T00:00:00Z"}
            """
        try writeFile(dir + "/in.ndjson", text)
        return dir + "/in.ndjson"
    }

    func testValidateSummaryAndNoStateChange() throws {
        let path = try sampleFile()
        let config = try testConfig(stateDir: dir + "/state")
        let s = try Validator.validate(config: config, inputs: try InputResolver.resolve([path]))
        XCTAssertEqual([s.lines, s.valid, s.invalid, s.blank], [5, 2, 2, 1])
        XCTAssertEqual(s.reasons, ["missing_event_name": 1, "invalid_json": 1])
        XCTAssertEqual(s.problems.map(\.formatted).first, "\(path):3: missing_event_name: a track event needs a non-empty string \"event\"")
        XCTAssertEqual(s.problems.last?.line, 4)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/state"))
        let json = try JSONValue(parsing: s.json).objectValue!
        XCTAssertEqual(json.keys, ["lines", "valid", "invalid", "blank", "reasons", "skipped", "warnings"])
        XCTAssertEqual(json["reasons"]?.objectValue?["invalid_json"], .number(JSONNumber(1)))
        XCTAssertTrue(s.text.hasPrefix("5 lines: 2 valid, 2 invalid, 1 blank\n"))
    }

    func testDryRunWritesEventsInOrderAndDeadLetters() throws {
        let path = try sampleFile()
        let config = try testConfig(stateDir: dir + "/state")
        let outPath = dir + "/out.ndjson"
        let fd = open(outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let stats = try DryRunner.run(config: config, inputs: [InputSource(path: path, kind: .ndjson)], outputFD: fd)
        close(fd)
        XCTAssertEqual(stats.events, 2)
        let out = try String(contentsOfFile: outPath, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(out.count, 2)
        XCTAssertEqual(try JSONValue(parsing: String(out[1])).objectValue?["userId"], .string("U"))
        let dead = try String(contentsOfFile: dir + "/state/dry-run-dead-letter.ndjson", encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(dead.count, 2)
        XCTAssertEqual(try JSONValue(parsing: String(dead[1])).objectValue?["raw"], .string("nope"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/state/identity.sqlite"))
        // A second dry run gives the same events (stable ids, same identities).
        let outPath2 = dir + "/out2.ndjson"
        let fd2 = open(outPath2, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        _ = try DryRunner.run(config: config, inputs: [InputSource(path: path, kind: .ndjson)], outputFD: fd2)
        close(fd2)
        XCTAssertEqual(try String(contentsOfFile: outPath2, encoding: .utf8), try String(contentsOfFile: outPath, encoding: .utf8))
    }

    /// What a dry run learns stays out of the state: a track before its identify gets no userId
    /// in a first dry run, in a second one, and (the state's identities unchanged) in a real run.
    /// The device anonymousId is the state's, so the dry run shows what the real run sends.
    func testDryRunLeavesTheStateIdentitiesAlone() throws {
        let path = dir + "/in.ndjson"
        try writeFile(path, #"{"type":"track","event":"A","timestamp":"2024-01-01T00:00:00Z"}"# + "\n"
            + #"{"type":"identify","userId":"u1","timestamp":"2024-01-01T00:00:01Z"}"# + "\n")
        let config = try testConfig(stateDir: dir + "/state")
        var outputs: [String] = []
        for n in 0..<2 {
            let outPath = dir + "/out\(n).ndjson"
            let fd = open(outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            _ = try DryRunner.run(config: config, inputs: [InputSource(path: path, kind: .ndjson)], outputFD: fd)
            close(fd)
            outputs.append(try String(contentsOfFile: outPath, encoding: .utf8))
        }
        XCTAssertEqual(outputs[0], outputs[1])
        let first = try JSONValue(parsing: String(outputs[0].split(separator: "\n")[0])).objectValue!
        XCTAssertNil(first["userId"], outputs[0])
        let state = try IdentityStore(stateDirectory: dir + "/state")
        defer { state.close() }
        XCTAssertEqual(first["anonymousId"], .string(state.deviceAnonymousId))
        XCTAssertNil(try state.userId(forAnonymousId: state.deviceAnonymousId), "nothing learned reached the state")
    }
}
