import Foundation
import JSONCore
@_spi(PerLine) import MetaRouter
import ReplayKit
import TestSupport
import Testing

/// A dry run (events rendered into one buffer and written out) gives exactly the events the
/// enricher gives line by line.
final class RenderedPathTests {
    let dir: String
    init() throws { dir = try makeTempDir() }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    @Test func dryRunWritesWhatProcessReturns() throws {
        let lines = [
            #"{"type":"identify","anonymousId":"a1","userId":"u1","timestamp":"2024-01-01T00:00:00Z"}"#,
            #"{"type":"track","event":"E","anonymousId":"a1","timestamp":"2024-01-01T00:00:01Z","context":{"locale":"x"}}"#,
            #"{"type":"group","userId":"u1","groupId":"g-\"q\"","timestamp":"2024-01-01T00:00:02Z"}"#,
            #"{"type":"page","anonymousId":"a1","timestamp":"2024-01-01T00:00:03Z","sentAt":"x","writeKey":"w"}"#,
            #"{"type":"identify","anonymousId":"a-\u00e9","userId":12345,"timestamp":"2024-01-01T00:00:04Z"}"#,
            #"{"type":"track","event":"E","anonymousId":"a-é","timestamp":"2024-01-01T00:00:05Z","context":{"app":{"v":1}}}"#,
            #"{"type":"alias","userId":"a-very-long-user-id-over-sixteen-bytes","previousId":"p","anonymousId":"long-anonymous-id-0123456789","timestamp":"2024-01-01T00:00:06Z"}"#,
            #"{"type":"screen","anonymousId":"long-anonymous-id-0123456789","timestamp":"2024-01-01T00:00:07Z","type":"screen"}"#,
            #"{"type":"track","event":"No anon","timestamp":"2024-01-01T00:00:08Z","messageId":""}"#,
            "not json",
            #"{"type":"group","anonymousId":"a1","groupId":7,"timestamp":"2024-01-01T00:00:09Z"}"#,
            #"{"type":"track","event":"E","anonymousId":"a1","timestamp":"2024-01-01T00:00:10Z"}"#,
        ]
        try writeFile(dir + "/in.ndjson", lines.joined(separator: "\n") + "\n")
        let config = try testConfig(stateDir: dir + "/state")
        let outPath = dir + "/out.ndjson"
        #expect(FileManager.default.createFile(atPath: outPath, contents: nil))
        let fd = open(outPath, O_WRONLY)
        defer { close(fd) }
        let stats = try DryRunner.run(config: config, inputs: [InputSource(path: dir + "/in.ndjson", kind: .ndjson)], outputFD: fd, nowMillis: { 0 })
        #expect(stats.events == lines.count - 1)
        #expect(stats.userIdsCarried > 0)
        #expect(stats.groupIdsCarried > 0)
        let written = try String(contentsOfFile: outPath, encoding: .utf8).split(separator: "\n").map(String.init)

        // The same lines one by one, from the same state (the dry run learned nothing into it).
        let identity = try IdentityStore(stateDirectory: dir + "/state")
        defer { identity.close() }
        let enricher = Enricher(config: config, identity: identity, nowMillis: { 0 })
        var expected: [String] = []
        for (i, line) in lines.enumerated() {
            if case .event(let event) = enrich(enricher, line, lineNumber: i + 1, sequence: UInt64(i + 1)), case let bytes = event.bytes {
                expected.append(String(decoding: bytes, as: UTF8.self))
            }
        }
        #expect(written == expected)
        #expect(written[1].contains(#""userId":"u1""#), "\(written[1])")
        #expect(written.last!.contains(#""userId":"u1""#) && written.last!.contains(#""groupId":"7""#), "\(written.last!)")
    }
}
