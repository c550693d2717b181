import JSONCore
import TestSupport
import Testing

/// `ObjectEditor`: removals, replacements and appends spliced into the original bytes.
struct ObjectEditorTests {
    /// Scans `text`, lets `edit` change it, and returns the rendered bytes as a string.
    func edited(_ text: String, _ edit: (inout ObjectEditor, UnsafeBufferPointer<UInt8>) -> Void) throws -> String {
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { buffer in
            var editor = ObjectEditor(try ObjectLayout.scanDocument(buffer))
            edit(&editor, buffer)
            let out = editor.rendered(buffer)
            #expect(throws: Never.self) { try JSONParser.parse(out) }
            return String(decoding: out, as: UTF8.self)
        }
    }

    @Test func noEditsCopiesMembersExactly() throws {
        let out = try edited(#" { "a" : 1.50 , "b":"é\u00e9" } "#) { editor, _ in #expect(!editor.hasEdits) }
        #expect(out == #"{"a" : 1.50,"b":"é\u00e9"}"#)
    }

    @Test func removeFirstMiddleLastAndMissing() throws {
        let text = #"{"a":1,"b":2,"c":3}"#
        var removedA = false
        #expect(try edited(text) { e, b in removedA = e.remove("a", in: b) } == #"{"b":2,"c":3}"#)
        #expect(removedA)
        #expect(try edited(text) { e, b in e.remove("b", in: b) } == #"{"a":1,"c":3}"#)
        #expect(try edited(text) { e, b in e.remove("c", in: b) } == #"{"a":1,"b":2}"#)
        var removedMissing = true
        #expect(try edited(text) { e, b in removedMissing = e.remove("zz", in: b) } == text)
        #expect(!removedMissing)
        #expect(try edited(text) { e, _ in e.remove(at: 1) } == #"{"a":1,"c":3}"#)
        #expect(try edited(text) { e, b in for k in ["a", "b", "c"] { e.remove(k, in: b) } } == "{}")
    }

    @Test func removeDropsEveryDuplicate() throws {
        #expect(try edited(#"{"a":1,"b":2,"a":3}"#) { e, b in e.remove("a", in: b) } == #"{"b":2}"#)
    }

    @Test func replaceKeepsPositionAndOriginalKeyBytes() throws {
        let out = try edited(#"{"t\u0079pe":"x","n":1}"#) { e, b in
            e.set("type", string: "track", in: b)
            #expect(e.hasEdits)
        }
        #expect(out == #"{"t\u0079pe":"track","n":1}"#)
    }

    @Test func replaceDuplicateKeepsLastPositionAndDropsEarlierOnes() throws {
        let out = try edited(#"{"a":1,"b":2,"a":3,"c":4}"#) { e, b in e.set("a", raw: Array("9".utf8), in: b) }
        #expect(out == #"{"b":2,"a":9,"c":4}"#)
    }

    @Test func appendToEmptyAndNonEmptyObjects() throws {
        #expect(try edited("{}") { e, b in e.set("k", string: "v\"\n", in: b) } == #"{"k":"v\"\n"}"#)
        #expect(
            try edited(" { } ") { e, b in
                e.set("a", raw: Array("[1]".utf8), in: b)
                e.set("b", raw: Array("{}".utf8), in: b)
                e.set("a", raw: Array("2".utf8), in: b)  // updates the appended member
            } == #"{"a":2,"b":{}}"#)
        #expect(try edited(#"{"x":0}"#) { e, b in e.set("new key é", string: "😀", in: b) } == #"{"x":0,"new key é":"😀"}"#)
    }

    @Test func removeCancelsAnAppend() throws {
        var removed = true
        let out = try edited(#"{"x":0}"#) { e, b in
            e.set("y", string: "1", in: b)
            removed = e.remove("y", in: b)
        }
        #expect(!removed, "not in the original")
        #expect(out == #"{"x":0}"#)
    }

    @Test func setAfterRemoveRestoresTheMember() throws {
        #expect(
            try edited(#"{"a":1,"b":2}"#) { e, b in
                e.remove("a", in: b)
                e.set("a", raw: Array("5".utf8), in: b)
            } == #"{"a":5,"b":2}"#)
    }

    @Test func renderAppendsToExistingOutput() throws {
        let bytes = Array(#"{"a":1}"#.utf8)
        try bytes.withUnsafeBufferPointer { buffer in
            var editor = ObjectEditor(try ObjectLayout.scanDocument(buffer))
            editor.set("b", raw: Array("true".utf8), in: buffer)
            var out = Array("[".utf8)
            editor.render(buffer, into: &out)
            out.append(UInt8(ascii: "]"))
            #expect(String(decoding: out, as: UTF8.self) == #"[{"a":1,"b":true}]"#)
        }
    }

    /// Random edits on generated events, checked against a simple model of the same edits.
    @Test func randomEditsMatchAModel() throws {
        var gen = JSONTextGenerator(seed: 0x5EED_0030)
        var rng = SeededRandom(seed: 0x5EED_0031)
        for _ in 0..<400 {
            let text = gen.eventText()
            let original = try #require(try JSONValue(parsing: text).objectValue)
            let bytes = Array(text.utf8)
            try bytes.withUnsafeBufferPointer { buffer in
                let layout = try ObjectLayout.scanDocument(buffer)
                var editor = ObjectEditor(layout)
                var model = EditModel(original)
                let candidateKeys = original.keys + ["messageId", "context", "new", "é", "k\"q"]
                for _ in 0..<rng.int(0...5) {
                    let key = rng.pick(candidateKeys)
                    if rng.chance(0.4) {
                        editor.remove(key, in: buffer)
                        model.remove(key)
                    } else {
                        let value = gen.valueText(depth: 2)
                        editor.set(key, raw: Array(value.utf8), in: buffer)
                        model.set(key, try JSONValue(parsing: value))
                    }
                }
                let out = editor.rendered(buffer)
                let result = try JSONParser.parse(out)
                #expect(result == .object(model.object), "edits of \(text)")
            }
        }
    }
}

/// The editor's documented semantics on a tree: keys match by UTF-8 bytes; `set` on an existing
/// key replaces its last original occurrence in place and drops earlier ones, otherwise appends.
struct EditModel {
    struct Entry {
        var key: String
        var value: JSONValue
        var origin: Int?
    }

    let original: [(key: String, value: JSONValue)]
    var entries: [Entry]

    init(_ object: JSONObject) {
        original = object.members
        entries = object.members.enumerated().map { Entry(key: $0.element.key, value: $0.element.value, origin: $0.offset) }
    }

    static func same(_ a: String, _ b: String) -> Bool { a.utf8.elementsEqual(b.utf8) }

    mutating func remove(_ key: String) { entries.removeAll { Self.same($0.key, key) } }

    mutating func set(_ key: String, _ value: JSONValue) {
        if let idx = original.indices.last(where: { Self.same(original[$0].key, key) }) {
            entries.removeAll { Self.same($0.key, key) && $0.origin != idx }
            if let e = entries.firstIndex(where: { $0.origin == idx }) {
                entries[e].value = value
            } else {
                let at = entries.firstIndex { ($0.origin ?? Int.max) > idx } ?? entries.count
                entries.insert(Entry(key: original[idx].key, value: value, origin: idx), at: at)
            }
        } else if let e = entries.firstIndex(where: { Self.same($0.key, key) }) {
            entries[e].value = value
        } else {
            entries.append(Entry(key: key, value: value, origin: nil))
        }
    }

    var object: JSONObject { JSONObject(entries.map { (key: $0.key, value: $0.value) }) }
}
