import JSONCore
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

    @Test func recordsWhatASkimFindsAndScansAsThePlainScanDoes() {
        var gen = JSONTextGenerator(seed: 0xC0_7E47)
        var rng = SeededRandom(seed: 0xC0_7E48)
        var nested = NestedObject(key: Self.key)
        var (recorded, failed) = (0, 0)
        for n in 0..<4_000 {
            var line = Self.document(&gen)
            if n % 2 == 1 { line = JSONMutator.mutate(line, using: &rng) }
            line.withUnsafeBufferPointer { buf in
                var plain = ObjectLayout()
                var layout = ObjectLayout()
                let plainError = Self.failure { () throws(JSONError) in try ObjectLayout.scanDocument(buf, reusing: &plain) }
                let error = Self.failure { () throws(JSONError) in try ObjectLayout.scanDocument(buf, reusing: &layout, recording: &nested) }
                #expect(error == plainError, "\(String(decoding: line, as: UTF8.self))")
                #expect(layout.members == plain.members && layout.range == plain.range)
                guard error == nil else {
                    failed += 1
                    #expect(nested.index == nil && nested.layout.members.isEmpty)
                    return
                }
                #expect(nested.index == Self.expectedIndex(layout, buf), "\(String(decoding: line, as: UTF8.self))")
                guard let index = nested.index else { return #expect(nested.layout.members.isEmpty) }
                recorded += 1
                var skimmed = ObjectLayout()
                #expect(ObjectLayout.skimNested(buf, layout.members[index].value, reusing: &skimmed))
                #expect(skimmed.members == nested.layout.members && skimmed.range == nested.layout.range)
            }
        }
        // Both outcomes, and recording, must really be exercised.
        #expect(recorded > 1_000)
        #expect(failed > 1_000)
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
