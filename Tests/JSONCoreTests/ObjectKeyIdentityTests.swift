import JSONCore
import Testing

/// Object keys are exact: canonically equivalent but different keys stay apart.
struct ObjectKeyIdentityTests {
    @Test func canonicallyEquivalentKeysAreDistinct() throws {
        let value = try JSONValue(parsing: "{\"\u{E9}\":1,\"e\u{301}\":2}")
        var o = try #require(value.objectValue)
        #expect(o["\u{E9}"] == 1)
        #expect(o["e\u{301}"] == 2)
        o["e\u{301}"] = nil
        #expect(o.count == 1)
        #expect(o["\u{E9}"] == 1)
        #expect(JSONObject([(key: "\u{E9}", value: 1)]) != JSONObject([(key: "e\u{301}", value: 1)]))
        #expect(JSONObject([(key: "\u{E9}", value: 1)]) == JSONObject([(key: "\u{E9}", value: 1)]))
        #expect(JSONValue.string("\u{E9}") != JSONValue.string("e\u{301}"), "string values are exact too")
        #expect(JSONValue.string("\u{E9}") == JSONValue.string("\u{E9}"))
        #expect(Set([JSONValue.string("\u{E9}"), .string("e\u{301}")]).count == 2)
        // The same rule as ObjectLayout, which matches keys by bytes.
        let bytes = Array("{\"\u{E9}\":1,\"e\u{301}\":2}".utf8)
        try bytes.withUnsafeBufferPointer { buffer in
            let layout = try ObjectLayout.scanDocument(buffer)
            #expect(layout.index(of: "\u{E9}", in: buffer) == 0)
            #expect(layout.index(of: "e\u{301}", in: buffer) == 1)
        }
    }
}
