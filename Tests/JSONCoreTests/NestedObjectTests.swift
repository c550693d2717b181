import JSONCore
import TestSupport
import Testing

/// Recording a member's object while the document is validated (`NestedObject`): the scan is the
/// plain scan (the same layout, or the same error at the same byte), and what it records is what
/// a skim of that member's value finds, for the last member of that key whose value is an object.
struct NestedObjectTests {
    static let key = Array("context".utf8)

    /// A document whose members are often named `context`: objects, other values, the key
    /// written with an escape, duplicates, and `context` inside another member.
    static func document(_ gen: inout JSONTextGenerator) -> [UInt8] {
        var members: [String] = []
        for _ in 0..<gen.rng.int(0...5) {
            let value: String
            switch gen.rng.int(0...9) {
            case 0...4: value = "\"context\"" + gen.whitespace() + ":" + gen.whitespace() + gen.objectText(depth: 1, memberCount: gen.rng.int(0...5))
            case 5: value = "\"context\":" + gen.valueText(depth: 1)
            case 6: value = #""con\u0074ext":"# + gen.objectText(depth: 1, memberCount: gen.rng.int(0...3))
            case 7: value = #""properties":{"context":"# + gen.objectText(depth: 2, memberCount: 2) + "}"
            default: value = gen.stringText() + ":" + gen.valueText(depth: 1)
            }
            members.append(gen.whitespace() + value + gen.whitespace())
        }
        return Array((gen.whitespace() + "{" + members.joined(separator: ",") + "}" + gen.whitespace()).utf8)
    }

    /// The index the scan must record: the last member keyed `context` (no escapes) whose value
    /// is an object.
    static func expectedIndex(_ layout: ObjectLayout, _ buf: UnsafeBufferPointer<UInt8>) -> Int? {
        layout.members.lastIndex { m in
            !m.keyHasEscapes && m.kind == .object && Array(UnsafeBufferPointer(rebasing: buf[m.key])) == key
        }
    }

    /// The error `scan` throws, if any.
    static func failure(_ scan: () throws(JSONError) -> Void) -> JSONError? {
        do throws(JSONError) {
            try scan()
            return nil
        } catch {
            return error
        }
    }

    /// Scans `buf` plainly and recording in `nested`, and expects the same layout or the same
    /// error; when it succeeds, that the right member was recorded, and that a skim of its value
    /// finds what was recorded. Returns the error, and whether an object was recorded.
    static func scanBothWays(_ buf: UnsafeBufferPointer<UInt8>, _ nested: inout NestedObject) -> (error: JSONError?, recorded: Bool) {
        let text = String(decoding: buf, as: UTF8.self)
        var plain = ObjectLayout()
        var layout = ObjectLayout()
        let plainError = failure { () throws(JSONError) in try ObjectLayout.scanDocument(buf, reusing: &plain) }
        let error = failure { () throws(JSONError) in try ObjectLayout.scanDocument(buf, reusing: &layout, recording: &nested) }
        #expect(error == plainError, "\(text)")
        #expect(layout.members == plain.members && layout.range == plain.range)
        guard error == nil else { return (error, false) }
        #expect(nested.index == expectedIndex(layout, buf), "\(text)")
        guard let index = nested.index else { return (nil, false) }
        var skimmed = ObjectLayout()
        #expect(ObjectLayout.skimNested(buf, layout.members[index].value, reusing: &skimmed))
        #expect(skimmed.members == nested.layout.members && skimmed.range == nested.layout.range, "\(text)")
        return (nil, true)
    }

    @Test func recordsWhatASkimFindsAndScansAsThePlainScanDoes() {
        var gen = JSONTextGenerator(seed: 0xC0_7E47)
        var rng = SeededRandom(seed: 0xC0_7E48)
        var nested = NestedObject(key: Self.key)
        var (recorded, failed) = (0, 0)
        for n in 0..<4_000 {
            var line = Self.document(&gen)
            if n % 2 == 1 { line = JSONMutator.mutate(line, using: &rng) }
            let (error, wasRecorded) = line.withUnsafeBufferPointer { Self.scanBothWays($0, &nested) }
            if error != nil {
                failed += 1
                #expect(nested.index == nil && nested.layout.members.isEmpty)
            } else if wasRecorded {
                recorded += 1
            } else {
                #expect(nested.layout.members.isEmpty)
            }
        }
        // Both outcomes, and recording, must really be exercised.
        #expect(recorded > 1_000)
        #expect(failed > 1_000)
    }

    /// Documents whose `context` is one of a few objects, at a different offset each time (a
    /// varying member before it), sometimes cut short or mutated: consecutive documents share
    /// their context's bytes, so the recording is often replayed instead of scanned, and it must
    /// give what the plain scan and a skim give, errors included.
    @Test func aRepeatedObjectIsReplayedAsTheScanWouldRecordIt() {
        var gen = JSONTextGenerator(seed: 0xC0_7E49)
        var rng = SeededRandom(seed: 0xC0_7E4A)
        // Each at least minimumKeptBytes long (padded by a last member), so that it is kept.
        let pad = #","pad":""# + String(repeating: "p", count: NestedObject.minimumKeptBytes) + #"""#
        let contexts =
            (0..<3).map { _ in String(gen.objectText(depth: 1, memberCount: gen.rng.int(1...6)).dropLast()) + pad + "}" }
            + [#"{"a":1"# + pad + "}", #"{"a":1,"b":{"c":[true]}"# + pad + "}"]
        var nested = NestedObject(key: Self.key)
        var (replayed, recorded) = (0, 0)
        for n in 0..<4_000 {
            let context = contexts[gen.rng.int(0...(n % 7 == 0 ? contexts.count - 1 : 1))]
            let before = gen.rng.int(0...2) == 0 ? "" : "\"type\":" + gen.stringText() + ","
            var line = Array(
                ("{" + before + "\"context\":" + context + (gen.rng.int(0...1) == 0 ? "" : ",\"e\":" + gen.valueText(depth: 1)) + "}").utf8)
            switch n % 10 {
            case 7: line = JSONMutator.mutate(line, using: &rng)
            case 8: line = Array(line.prefix(gen.rng.int(0...line.count)))
            default: break
            }
            let replaysBefore = nested.replays
            if line.withUnsafeBufferPointer({ Self.scanBothWays($0, &nested) }).recorded { recorded += 1 }
            if nested.replays > replaysBefore { replayed += 1 }
        }
        // The replay must really be exercised, and so must the scan that records.
        #expect(replayed > 1_000)
        #expect(recorded - replayed > 500)
    }

    /// An object the scan found invalid is not kept, nor is one shorter or longer than the
    /// limits: the next document with the same bytes is scanned again.
    @Test func onlyValidObjectsWithinTheLimitAreReplayed() {
        var nested = NestedObject(key: Self.key)
        func scan(_ text: String) -> JSONError? {
            Array(text.utf8).withUnsafeBufferPointer { buf in
                var layout = ObjectLayout()
                return Self.failure { () throws(JSONError) in try ObjectLayout.scanDocument(buf, reusing: &layout, recording: &nested) }
            }
        }
        func object(_ bytes: Int, _ last: String = "true") -> String {
            #"{"s":""# + String(repeating: "x", count: bytes - 13 - last.count) + #"","a":"# + last + "}"
        }
        #expect(object(200).utf8.count == 200)
        #expect(scan(#"{"context":"# + object(200, "tru") + "}") != nil)
        #expect(scan(#"{"context":"# + object(200, "tru") + "}") != nil)
        #expect(nested.replays == 0)
        #expect(scan(#"{"context":"# + object(200) + "}") == nil)
        #expect(scan(#"{"x":1,"context":"# + object(200) + "}") == nil)
        #expect(nested.replays == 1)
        #expect(nested.layout.range == 17..<217)
        for size in [NestedObject.minimumKeptBytes - 1, NestedObject.maximumKeptBytes + 1] {
            #expect(scan(#"{"context":"# + object(size) + "}") == nil)
            #expect(scan(#"{"context":"# + object(size) + "}") == nil)
        }
        #expect(nested.replays == 1)
        for size in [NestedObject.minimumKeptBytes, NestedObject.maximumKeptBytes] {
            #expect(scan(#"{"context":"# + object(size) + "}") == nil)
            #expect(scan(#"{"context":"# + object(size) + "}") == nil)
        }
        #expect(nested.replays == 3)
    }

    /// Where objects stop repeating, only some are kept (a back-off), and the first replay ends
    /// the back-off: after many distinct objects, a run of one repeated object is replayed from
    /// at most `backOffEvery` documents on, and then on every document.
    @Test func objectsThatDoNotRepeatAreKeptLessOften() {
        var nested = NestedObject(key: Self.key)
        func scan(_ context: String) -> Bool {
            let before = nested.replays
            Array((#"{"context":"# + context + "}").utf8).withUnsafeBufferPointer { buf in
                var layout = ObjectLayout()
                #expect(Self.failure { () throws(JSONError) in try ObjectLayout.scanDocument(buf, reusing: &layout, recording: &nested) } == nil)
            }
            return nested.replays > before
        }
        func object(_ n: Int) -> String { #"{"n":\#(n),"s":""# + String(repeating: "x", count: NestedObject.minimumKeptBytes) + #""}"# }
        for n in 0..<(NestedObject.backOffAfter + 3) { #expect(!scan(object(n))) }
        let run = (0..<(3 * NestedObject.backOffEvery)).map { _ in scan(object(-1)) }
        let first = run.firstIndex(of: true)
        #expect(first != nil && first! >= 2 && first! <= NestedObject.backOffEvery)
        #expect(run[(first ?? 0)...].allSatisfy { $0 })
        // Right after a replay, every object is kept again.
        #expect(!scan(object(-2)))
        #expect(scan(object(-2)))
    }

    /// The depth limit counts the recorded object as the plain scan does: the deepest document
    /// accepted and the shallowest refused are the same.
    @Test(arguments: [JSONScanner.maximumDepth - 2, JSONScanner.maximumDepth - 1, JSONScanner.maximumDepth])
    func theDepthLimitIsTheSame(arrays: Int) {
        let line = Array(("{\"context\":{\"x\":" + String(repeating: "[", count: arrays) + String(repeating: "]", count: arrays) + "}}").utf8)
        line.withUnsafeBufferPointer { buf in
            var layout = ObjectLayout()
            var nested = NestedObject(key: Self.key)
            let plainError = Self.failure { () throws(JSONError) in try ObjectLayout.scanDocument(buf, reusing: &layout) }
            let error = Self.failure { () throws(JSONError) in try ObjectLayout.scanDocument(buf, reusing: &layout, recording: &nested) }
            #expect(error == plainError)
            #expect((error == nil) == (arrays <= JSONScanner.maximumDepth - 2), "the document and the context hold two levels")
        }
    }
}
