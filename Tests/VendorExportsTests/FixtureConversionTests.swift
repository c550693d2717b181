import JSONCore
import Testing
import VendorExports

/// Every fixture record, in its vendor's real export shape, against the Segment events written
/// for it by hand: the same number of events, and every field equal (values compared exactly,
/// numbers by their text).
@Suite("Fixture records become the hand-written Segment events")
struct FixtureConversionTests {
    @Test("converts", arguments: FixtureCase.all)
    func converts(_ c: FixtureCase) throws {
        let record = Fixtures.records(c.format)[c.line]
        let expectedLines = Fixtures.expected(c.format)
        try #require(expectedLines.count == Fixtures.records(c.format).count, "\(c.format): one expected line per record")
        let expected = try #require(try JSONValue(parsing: expectedLines[c.line]).arrayValue)
        let result = Convert.events(c.format, record)
        guard case .success(let events) = result else {
            Issue.record("\(c.testDescription) failed: \(result)")
            return
        }
        #expect(events.count == expected.count, "\(c.testDescription): \(events.count) events, expected \(expected.count)")
        for (k, (text, want)) in zip(events, expected).enumerated() {
            #expect(!text.contains("\n"), "\(c.testDescription) event \(k) holds a newline")
            let got = try JSONValue(parsing: text)
            let gotLeaves = Flatten.leaves(got)
            let wantLeaves = Flatten.leaves(want)
            let gotByPath = Dictionary(gotLeaves.map { ($0.path, $0.value) }, uniquingKeysWith: { a, _ in a })
            let wantByPath = Dictionary(wantLeaves.map { ($0.path, $0.value) }, uniquingKeysWith: { a, _ in a })
            #expect(gotLeaves.count == gotByPath.count, "\(c.testDescription) event \(k) has a duplicate key")
            for (path, value) in wantLeaves {
                #expect(
                    gotByPath[path] == value,
                    "\(c.testDescription) event \(k) \(path): got \(gotByPath[path]?.encodedString ?? "nothing"), expected \(value.encodedString)")
            }
            for (path, value) in gotLeaves where wantByPath[path] == nil {
                Issue.record("\(c.testDescription) event \(k) has unexpected \(path) = \(value.encodedString)")
            }
        }
    }

    @Test("writes compact JSON: no whitespace outside strings", arguments: FixtureCase.all)
    func compact(_ c: FixtureCase) throws {
        guard case .success(let events) = Convert.events(c.format, Fixtures.records(c.format)[c.line]) else { return }
        for text in events {
            let reencoded = try JSONValue(parsing: text).encodedString
            #expect(text == reencoded, "\(c.testDescription): \(text)")
        }
    }
}
