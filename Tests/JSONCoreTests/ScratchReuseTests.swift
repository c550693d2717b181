import JSONCore
import Testing

/// Scanning and editing into reused storage gives the same results as fresh values.
struct ScratchReuseTests {
    @Test func scanDocumentReusingMatchesAFreshScanLineAfterLine() throws {
        let lines = [
            #"{"a":1,"b":{"c":[1,2]},"d":"é"}"#,
            #" { "x" : true } "#,
            "{}",
            #"{"k":"v","k":"w","\u006b":null}"#,
        ]
        var scratch = ObjectLayout()
        for text in lines {
            let bytes = Array(text.utf8)
            try bytes.withUnsafeBufferPointer { buf in
                let fresh = try ObjectLayout.scanDocument(buf)
                try ObjectLayout.scanDocument(buf, reusing: &scratch)
                #expect(scratch.members == fresh.members, "\(text)")
                #expect(scratch.range == fresh.range, "\(text)")
            }
        }
    }

    @Test(arguments: [#"{"a":1,"b":}"#, "[1]", #"{"a":1} x"#])
    func scanDocumentReusingLeavesNoMembersOnError(bad: String) throws {
        var scratch = ObjectLayout()
        let good = Array(#"{"a":1,"b":2}"#.utf8)
        try good.withUnsafeBufferPointer { try ObjectLayout.scanDocument($0, reusing: &scratch) }
        #expect(scratch.members.count == 2)
        let bytes = Array(bad.utf8)
        #expect(throws: JSONError.self, "\(bad)") {
            try bytes.withUnsafeBufferPointer { try ObjectLayout.scanDocument($0, reusing: &scratch) }
        }
        #expect(scratch.members.isEmpty, "\(bad)")
    }

    @Test func scanNestedReusingMatchesScanNested() throws {
        let bytes = Array(#"{"ctx":{"a":1,"b":[{}]},"n":5}"#.utf8)
        try bytes.withUnsafeBufferPointer { buf in
            let top = try ObjectLayout.scanDocument(buf)
            var scratch = ObjectLayout()
            #expect(ObjectLayout.scanNested(buf, top.members[0].value, reusing: &scratch))
            let fresh = try #require(ObjectLayout.scanNested(buf, top.members[0].value))
            #expect(scratch.members == fresh.members)
            #expect(scratch.range == fresh.range)
            #expect(!(ObjectLayout.scanNested(buf, top.members[1].value, reusing: &scratch)))
            #expect(scratch.members.isEmpty)
        }
    }

    /// Inside a validated document, skimming a nested object finds what scanning it does, keys
    /// with escapes and nested containers included; what is not an object is refused.
    @Test func skimNestedMatchesScanNestedInAValidatedDocument() throws {
        let bytes = Array(#"{"ctx":{ "a\u00e9" : [1,{"x":"}"}] ,"b":"q\"]","c":-1.5e3,"d":null,"e":true}, "n":5}"#.utf8)
        try bytes.withUnsafeBufferPointer { buf in
            let top = try ObjectLayout.scanDocument(buf)
            let scanned = try #require(ObjectLayout.scanNested(buf, top.members[0].value))
            var scratch = ObjectLayout()
            #expect(ObjectLayout.skimNested(buf, top.members[0].value, reusing: &scratch))
            #expect(scratch.members == scanned.members)
            #expect(scratch.range == scanned.range)
            #expect(scratch.members.count == 5)
            #expect(!ObjectLayout.skimNested(buf, top.members[1].value, reusing: &scratch))
            #expect(scratch.members.isEmpty && scratch.range == 0..<0)
        }
    }

    @Test func resetEditorForgetsEarlierEdits() throws {
        let first = Array(#"{"a":1,"b":2}"#.utf8)
        let second = Array(#"{"c":3}"#.utf8)
        var editor = ObjectEditor(ObjectLayout())
        try first.withUnsafeBufferPointer { buf in
            editor.reset(try ObjectLayout.scanDocument(buf))
            editor.remove("a", in: buf)
            editor.set("z", raw: Array("9".utf8), in: buf)
            #expect(String(decoding: editor.rendered(buf), as: UTF8.self) == #"{"b":2,"z":9}"#)
        }
        try second.withUnsafeBufferPointer { buf in
            editor.reset(try ObjectLayout.scanDocument(buf))
            #expect(!editor.hasEdits)
            #expect(String(decoding: editor.rendered(buf), as: UTF8.self) == #"{"c":3}"#)
            editor.replace(at: 0, raw: Array("4".utf8))
            #expect(String(decoding: editor.rendered(buf), as: UTF8.self) == #"{"c":4}"#)
        }
    }
}
