import Foundation
import JSONCore
import ReplayKit
import TestSupport
import Testing

final class PropertyTests {
    let dir: String
    init() throws { dir = try makeTempDir() }
    deinit { try? FileManager.default.removeItem(atPath: dir) }

    static let seeds: [String] = [
        "{\"type\":\"track\",\"event\":\"E\",\"anonymousId\":\"a\",\"timestamp\":\"2024-01-01T00:00:00Z\",\"properties\":{\"x\":[1,2,{\"y\":null}]}}",
        "{\"type\":\"identify\",\"userId\":\"u\",\"anonymousId\":\"b\",\"timestamp\":\"2024-01-01T00:00:00.5+02:00\",\"traits\":{\"email\":\"e\"}}",
        "{\"type\":\"group\",\"groupId\":\"g\",\"userId\":\"u\",\"timestamp\":\"2024-01-01T00:00:00Z\",\"context\":{\"device\":{\"advertisingId\":\"6D92078A-8246-4BA4-AE5B-76104861E7DC\"}}}",
        "{\"type\":\"page\",\"name\":\"P\",\"timestamp\":\"2024-01-01T00:00:00Z\",\"context\":{\"consent\":{\"isUserSubjectToGDPR\":true,\"hasConsentForDataUsage\":true},\"app\":{\"name\":\"\\u00e9\"}}}",
    ]

    func mutate(_ line: [UInt8], _ rng: inout SeededRandom) -> [UInt8] {
        var b = line
        let interesting: [UInt8] = Array("{}[]\",:\\0123456789aeflnrstu \t\n".utf8) + [0x00, 0x80, 0xC3, 0xFF, 0xED, 0xA0]
        for _ in 0..<Int.random(in: 1...4, using: &rng) {
            guard !b.isEmpty else { break }
            let i = Int.random(in: 0..<b.count, using: &rng)
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: b[i] = interesting.randomElement(using: &rng)!
            case 1: b.remove(at: i)
            case 2: b.insert(interesting.randomElement(using: &rng)!, at: i)
            default: b = Array(b[..<i])
            }
        }
        return b
    }

    @Test func randomAndMutatedLinesNeverCrashAndCountsAddUp() throws {
        var rng = SeededRandom(seed: 42)
        var file: [UInt8] = []
        for _ in 0..<3000 {
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: file += (0..<Int.random(in: 0..<80, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            case 1: file += mutate(Array(Self.seeds.randomElement(using: &rng)!.utf8), &rng)
            default: file += Array(Self.seeds.randomElement(using: &rng)!.utf8)
            }
            file.append(0x0A)
        }
        let path = dir + "/fuzz.ndjson"
        try Data(file).write(to: URL(fileURLWithPath: path))
        let expectedLines = file.split(separator: 0x0A, omittingEmptySubsequences: false).count - 1

        let config = try testConfig("privacy:\n  drop_properties: [email]\n", stateDir: dir + "/state")
        let identity = try IdentityStore(stateDirectory: nil)
        let enricher = Enricher(config: config, identity: identity)
        var events = 0, blank = 0, dead = 0, skipped = 0
        var records: [[UInt8]] = []
        try LineWalker.walk(inputs: [InputSource(path: path, kind: .ndjson)], config: config, enricher: enricher) { item in
            switch item.result {
            case .event(let event):
                let bytes = event.bytes
                events += 1
                let obj = try JSONValue(parsing: bytes).objectValue!
                #expect(obj["type"]?.stringValue != nil)
                #expect(obj["anonymousId"]?.stringValue != nil)
                #expect(!(obj["messageId"]?.stringValue?.isEmpty ?? true))
                #expect(obj["timestamp"]?.stringValue != nil)
                #expect(obj["sentAt"] == nil)
            case .blank: blank += 1
            case .skipped(let reason):
                #expect(reason == .consentDropped, "only consent settles a line without a snapshot or an age limit")
                skipped += 1
            case .deadLetter(let reason, let detail):
                dead += 1
                records.append(
                    DeadLetterWriter.record(reason: reason, detail: detail, source: path, line: item.line.lineNumber, raw: item.line.bytes))
            }
            return true
        }
        #expect(events + blank + dead + skipped == expectedLines)
        #expect(enricher.stats.lines == expectedLines)
        #expect(enricher.stats.invalid == dead)
        #expect(events > 500)
        #expect(dead > 500)
        for r in records {
            let obj = try JSONValue(parsing: r).objectValue!
            #expect(obj["reason"]?.stringValue != nil)
            #expect(obj["raw"] != nil || obj["raw_base64"] != nil)
        }
    }

    @Test func randomSnapshotsNeverCrash() throws {
        var rng = SeededRandom(seed: 7)
        let base = Array("{\"version\":1,\"events\":[\(Self.seeds.joined(separator: ","))]}".utf8)
        for i in 0..<200 {
            let bytes = mutate(base, &rng)
            let path = dir + "/s\(i).queue.v1.json"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            do {
                let lines = try readAll(InputSource(path: path, kind: .snapshot))
                #expect(lines.count <= Self.seeds.count + 1)
            } catch let error as InputError {
                // A mutated version or a lost "events" makes the file one that cannot be replayed.
                #expect(error.message.contains("cannot be replayed"), "\(error.message)")
            }
        }
    }
}
