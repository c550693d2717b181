import JSONCore
import Testing

/// `ObjectEditor.renderedCapacity` must fit the rendered object, whatever the appended keys hold.
/// (Found by the `jsoncore` fuzz target: a key of control characters, each escaped as `\u00XX`,
/// rendered longer than the capacity, which counted the key's UTF-8 plus 8 bytes.)
@Suite("ObjectEditor.renderedCapacity")
struct ObjectEditorCapacityTests {
    static let keys = ["", "k", "\u{1}\u{1F}\u{7F}", String(repeating: "\u{0}", count: 40), "\"\\\"\\", "\n\t\r\u{8}\u{C}", "é😀"]

    @Test("the capacity fits an object with an appended key", arguments: keys, ["{}", #"{"a" : 1 , "b":[2]}"#])
    func capacityFitsAppendedKey(key: String, text: String) throws {
        let bytes = Array(text.utf8)
        try bytes.withUnsafeBufferPointer { buffer in
            var editor = ObjectEditor(try ObjectLayout.scanDocument(buffer))
            editor.set(key, string: key, in: buffer)
            editor.set("a", raw: Array("[]".utf8), in: buffer)
            let out = editor.rendered(buffer)
            #expect(out.count <= editor.renderedCapacity)
            #expect(try JSONParser.parse(out).objectValue?[key] == .string(key))
        }
    }
}
