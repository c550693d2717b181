import JSONCore
import Testing

/// `ObjectEditor` matches keys by their exact UTF-8 bytes, like `ObjectLayout` and `JSONObject`:
/// canonically equivalent keys (which Swift's `String ==` calls equal) are different members.
@Suite("ObjectEditor matches keys by bytes")
struct ObjectEditorKeyBytesTests {
    /// Pairs of keys that are canonically equivalent but differ in their bytes.
    static let equivalentPairs: [(String, String)] = [
        ("\u{E9}", "e\u{301}"),  // é precomposed / e + combining acute
        ("\u{C5}", "A\u{30A}"),  // Å precomposed / A + combining ring
        ("\u{212B}", "\u{C5}"),  // ANGSTROM SIGN / Å
        ("\u{D55C}", "\u{1112}\u{1161}\u{11AB}"),  // 한 / its conjoining jamo
        ("a\u{323}\u{307}", "a\u{307}\u{323}"),  // combining marks in either order
    ]

    /// Scans `text`, applies `edit`, and returns the rendered object.
    static func edited(_ text: String, _ edit: (inout ObjectEditor, UnsafeBufferPointer<UInt8>) -> Void) throws -> [UInt8] {
        try Array(text.utf8).withUnsafeBufferPointer { buffer in
            var editor = ObjectEditor(try ObjectLayout.scanDocument(buffer))
            edit(&editor, buffer)
            return editor.rendered(buffer)
        }
    }

    /// The keys of a rendered object, as bytes.
    static func keys(_ rendered: [UInt8]) throws -> [[UInt8]] {
        let object = try #require(try JSONParser.parse(rendered).objectValue)
        return object.keys.map { Array($0.utf8) }
    }

    @Test("setting two equivalent keys appends two members", arguments: equivalentPairs)
    func setKeepsEquivalentKeysApart(first: String, second: String) throws {
        #expect(first == second, "the pair must be canonically equivalent for the test to mean anything")
        let out = try Self.edited("{}") { editor, buffer in
            editor.set(first, raw: Array("1".utf8), in: buffer)
            editor.set(second, raw: Array("2".utf8), in: buffer)
        }
        #expect(try Self.keys(out) == [Array(first.utf8), Array(second.utf8)])
        let object = try #require(try JSONParser.parse(out).objectValue)
        #expect(object[first] == 1)
        #expect(object[second] == 2)
    }

    @Test("removing a key leaves an appended equivalent key", arguments: equivalentPairs)
    func removeLeavesAppendedEquivalentKey(first: String, second: String) throws {
        let out = try Self.edited("{}") { editor, buffer in
            editor.set(first, raw: Array("1".utf8), in: buffer)
            let found = editor.remove(second, in: buffer)
            #expect(!found, "nothing to remove: the appended key differs")
        }
        #expect(try Self.keys(out) == [Array(first.utf8)])
    }

    @Test("removing or setting a key leaves an equivalent member of the original", arguments: equivalentPairs)
    func originalMembersMatchByBytes(first: String, second: String) throws {
        let text = "{\"\(first)\":1,\"x\":0}"
        let removed = try Self.edited(text) { editor, buffer in
            let found = editor.remove(second, in: buffer)
            #expect(!found, "the original key differs")
        }
        #expect(removed == Array(text.utf8))
        let set = try Self.edited(text) { editor, buffer in editor.set(second, raw: Array("2".utf8), in: buffer) }
        #expect(try Self.keys(set) == [Array(first.utf8), Array("x".utf8), Array(second.utf8)])
    }

    @Test("an escaped key still matches its decoded bytes")
    func escapedKeyMatchesDecodedBytes() throws {
        let out = try Self.edited(#"{"\u00e9":1,"e\u0301":2}"#) { editor, buffer in
            editor.set("\u{E9}", raw: Array("3".utf8), in: buffer)
            let found = editor.remove("e\u{301}", in: buffer)
            #expect(found)
        }
        #expect(String(decoding: out, as: UTF8.self) == #"{"\u00e9":3}"#)
    }
}
