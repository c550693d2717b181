import Foundation
import JSONCore
import ReplayKit
import TestSupport
import Testing

@Suite final class DeadLetterAndCommandTests {
    let dir: String
    init() throws { dir = try makeTempDir() }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    @Test func recordsUseRawOrBase64() throws {
        let w = try DeadLetterWriter(path: dir + "/state/dead-letter.ndjson")
        try w.write(reason: "invalid_json", detail: "d", source: "in.ndjson", line: 3, raw: Array("{\"a\":\n".utf8))
        try w.write(reason: "invalid_utf8", detail: "d2", source: "in.ndjson", line: 4, raw: [0xFF, 0x41])
        try w.close()
        let lines = try String(contentsOfFile: dir + "/state/dead-letter.ndjson", encoding: .utf8).split(separator: "\n")
        try #require(lines.count == 2)
        let a = try #require(try JSONValue(parsing: String(lines[0])).objectValue)
        #expect(a["reason"] == .string("invalid_json"))
        #expect(a["source"] == .string("in.ndjson"))
        #expect(a["line"] == .number(JSONNumber(3)))
        #expect(a["raw"] == .string("{\"a\":\n"))
        let b = try #require(try JSONValue(parsing: String(lines[1])).objectValue)
        #expect(b["raw"] == nil)
        #expect(b["raw_base64"] == .string(Data([0xFF, 0x41]).base64EncodedString()))
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

    @Test func validateSummaryAndNoStateChange() throws {
        let path = try sampleFile()
        let config = try testConfig(stateDir: dir + "/state")
        let s = try Validator.validate(config: config, inputs: try InputResolver.resolve([path]))
        let counts = [s.lines, s.valid, s.invalid, s.blank]
        #expect(counts == [5, 2, 2, 1])
        #expect(s.reasons == ["missing_event_name": 1, "invalid_json": 1])
        #expect(s.problems.map(\.formatted).first == "\(path):3: missing_event_name: a track event needs a non-empty string \"event\"")
        #expect(s.problems.last?.line == 4)
        #expect(!FileManager.default.fileExists(atPath: dir + "/state"))
        let json = try #require(try JSONValue(parsing: s.json).objectValue)
        #expect(json.keys == ["lines", "valid", "invalid", "blank", "reasons", "skipped", "warnings", "summary"])
        #expect(json["summary"]?.objectValue?["events"] == .number(JSONNumber(2)))
        #expect(json["reasons"]?.objectValue?["invalid_json"] == .number(JSONNumber(1)))
        #expect(s.text.hasPrefix("5 lines: 2 valid, 2 invalid, 1 blank\n"))
    }

    @Test func dryRunWritesEventsInOrderAndDeadLetters() throws {
        let path = try sampleFile()
        let config = try testConfig(stateDir: dir + "/state")
        let outPath = dir + "/out.ndjson"
        let fd = open(outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let stats = try DryRunner.run(config: config, inputs: [InputSource(path: path, kind: .ndjson)], outputFD: fd)
        close(fd)
        #expect(stats.events == 2)
        let out = try String(contentsOfFile: outPath, encoding: .utf8).split(separator: "\n")
        try #require(out.count == 2)
        #expect(try JSONValue(parsing: String(out[1])).objectValue?["userId"] == .string("U"))
        let dead = try String(contentsOfFile: dir + "/state/dry-run-dead-letter.ndjson", encoding: .utf8).split(separator: "\n")
        try #require(dead.count == 2)
        #expect(try JSONValue(parsing: String(dead[1])).objectValue?["raw"] == .string("nope"))
        #expect(FileManager.default.fileExists(atPath: dir + "/state/identity.sqlite"))
        // A second dry run gives the same events (stable ids, same identities).
        let outPath2 = dir + "/out2.ndjson"
        let fd2 = open(outPath2, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        _ = try DryRunner.run(config: config, inputs: [InputSource(path: path, kind: .ndjson)], outputFD: fd2)
        close(fd2)
        #expect(try String(contentsOfFile: outPath2, encoding: .utf8) == String(contentsOfFile: outPath, encoding: .utf8))
    }

    /// What a dry run learns stays out of the state: a track before its identify gets no userId
    /// in a first dry run, in a second one, and (the state's identities unchanged) in a real run.
    /// The device anonymousId is the state's, so the dry run shows what the real run sends.
    @Test func dryRunLeavesTheStateIdentitiesAlone() throws {
        let path = dir + "/in.ndjson"
        try writeFile(
            path,
            #"{"type":"track","event":"A","timestamp":"2024-01-01T00:00:00Z"}"# + "\n"
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
        #expect(outputs[0] == outputs[1])
        let first = try #require(try JSONValue(parsing: String(outputs[0].split(separator: "\n")[0])).objectValue)
        #expect(first["userId"] == nil, "\(outputs[0])")
        let state = try IdentityStore(stateDirectory: dir + "/state")
        defer { state.close() }
        #expect(first["anonymousId"] == .string(state.deviceAnonymousId))
        #expect(try state.userId(forAnonymousId: state.deviceAnonymousId) == nil, "nothing learned reached the state")
    }
}
