import JSONCore
import Testing
import VendorExports

/// The byte-level walks of validated records (``Skip``, ``ObjectMembers``, ``ArrayItems``) and
/// the key lookup (``KeyTable``), against JSONCore's validating scanner.
@Suite("Walking validated records")
struct WalkerTests {
    static let objects: [String] = [
        #"{}"#,
        #"{ "a" : 1 , "b":[1,{"c":"}]"}], "d" : {"e":"\"{[","f":null} }"#,
        #"{"esc\"aped":"x\\","uni":"\u00e9\ud83d\ude00","long":"0123456789abcdefghijklmnopqrstuvwxyz\"0123456789"}"#,
        #"{"n":-1.5e+10,"t":true,"f":false,"z":null,"s":"","o":{},"a":[]}"#,
        "{\n\t\"spaced\" :\r\n [ 1 ,\n 2 ] ,\"x\":\"12345678\",\"y\":\"1234567\"}",
        #"{"deep":[[[[{"k":[{"v":"]]]}}}"}]}]]]],"after":"ok"}"#,
    ]

    @Test("ObjectMembers finds the members a validating scan finds", arguments: objects)
    func members(_ text: String) throws {
        let bytes = Array(text.utf8)
        try bytes.withUnsafeBufferPointer { buffer in
            let layout = try ObjectLayout.scanDocument(buffer)
            var walked = ObjectMembers(buffer, ValueRef(range: layout.range, kind: .object))
            var found: [MemberRef] = []
            while let m = walked.next() { found.append(m) }
            #expect(found.count == layout.members.count, "\(text)")
            for (m, expected) in zip(found, layout.members) {
                #expect(m.key == expected.key && m.value.range == expected.value && m.value.kind == expected.kind, "\(text): \(m)")
                #expect(m.keyHasEscapes == expected.keyHasEscapes && m.span == expected.span, "\(text): \(m)")
            }
            #expect(walked.end == layout.range.upperBound, "\(text)")
        }
    }

    @Test("ArrayItems finds the items of an array, each the value it parses to", arguments: objects)
    func items(_ text: String) throws {
        let array = "[" + text + ",1,\"s\\\"]\"," + text + ",[],null]"
        let bytes = Array(array.utf8)
        let parsed = try #require(try JSONValue(parsing: array).arrayValue)
        try bytes.withUnsafeBufferPointer { buffer in
            _ = try JSONScanner.validate(buffer)
            let items = Array(ArrayItems(buffer, 0..<buffer.count))
            #expect(items.count == parsed.count, "\(array)")
            for (item, value) in zip(items, parsed) {
                #expect(try JSONValue(parsing: Array(buffer[item.range])) == value, "\(array): \(item)")
            }
        }
    }

    static let names = ["a", "event_type", "$insert_id", "device_manufacturer", "device_model", "user_properties", "[Amplitude] Page URL"]

    @Test("KeyTable finds every name and nothing else", arguments: names.indices)
    func keyTable(_ k: Int) {
        let table = KeyTable(Self.names)
        for (key, expected) in [(Self.names[k], k as Int?), (Self.names[k] + "x", nil), (String(Self.names[k].dropLast()), nil)] {
            let bytes = Array(key.utf8)
            let field = bytes.withUnsafeBufferPointer { table.field($0, 0..<$0.count) }
            #expect(field == expected || (expected == nil && field.map { Self.names[$0] == key } == true), "\(key): \(String(describing: field))")
        }
    }
}
