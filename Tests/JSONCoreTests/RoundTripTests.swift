import JSONCore
import Testing

/// Parse -> encode keeps numbers as written, key order, unicode, null and duplicates.
struct RoundTripTests {
    @Test func compactTextRoundTripsByteForByte() throws {
        let texts = [
            #"{"b":1,"a":2,"c":{"z":null,"y":[true,false]}}"#,
            #"{"n":[0,-0,1.50,1e3,1E-3,-2.5e+10,12345678901234567890123,0.000]}"#,
            #"{"s":"é中😀"# + "\u{7F}" + #"","e":""}"#,
            #"{"dup":1,"dup":2}"#,
            #"[null,{},[],"",0]"#,
            #""just a string""#,
            "-0.0",
        ]
        for text in texts {
            let value = try JSONParser.parse(Array(text.utf8))
            #expect(value.encodedString == text)
        }
    }

    @Test func numbersKeepTheirExactText() throws {
        let value = try JSONValue(parsing: #"{"i":42,"big":123456789012345678901234567890,"f":1.10,"e":1E5,"neg":-7}"#)
        let o = try #require(value.objectValue)
        #expect(o["i"] == .number(JSONNumber(uncheckedText: "42")))
        #expect(o["i"] == 42)
        guard case .number(let big) = o["big"], case .number(let f) = o["f"], case .number(let e) = o["e"],
            case .number(let neg) = o["neg"], case .number(let i) = o["i"]
        else {
            Issue.record("numbers expected")
            return
        }
        #expect(big.text == "123456789012345678901234567890")
        #expect(big.isInteger)
        #expect(big.intValue == nil, "does not fit in Int")
        #expect(f.text == "1.10")
        #expect(!f.isInteger)
        #expect(f.doubleValue == 1.1)
        #expect(e.text == "1E5")
        #expect(!e.isInteger)
        #expect(e.intValue == nil)
        #expect(e.doubleValue == 100_000)
        #expect(neg.intValue == -7)
        #expect(i.intValue == 42)
        #expect(
            JSONValue.number(JSONNumber(uncheckedText: "1.0")) != JSONValue.number(JSONNumber(uncheckedText: "1")),
            "numbers compare by text, so 1.0 and 1 stay distinct")
    }

    @Test func numberFromDoubleIsValidJSON() throws {
        let cases: [(Double, String?)] = [
            (3, "3"), (-0.0, "0"), (0.5, "0.5"), (-2.25, "-2.25"), (1e20, nil), (1.5e-7, nil), (.infinity, "0"), (.nan, "0"),
            (123_456_789_012_345.0, "123456789012345"),
        ]
        for (d, expected) in cases {
            let n = JSONNumber(d)
            if let expected { #expect(n.text == expected) }
            let reparsed = try JSONParser.parse(Array(n.text.utf8))
            guard case .number(let back) = reparsed else {
                Issue.record("\(d) did not encode as a number")
                return
            }
            if d.isFinite { #expect(back.doubleValue == (d == 0 ? 0 : d)) }
        }
        #expect(JSONNumber(-12).text == "-12")
    }

    @Test func escapesDecodeAndReencodeToEqualValues() throws {
        let text = #"{"k\"ey":"a\/b\\c\n\t\b\f\r\u0000\u001F\u00e9\uD83D\uDE00\u2028"}"#
        let value = try JSONValue(parsing: text)
        let o = try #require(value.objectValue)
        #expect(o.keys == ["k\"ey"])
        #expect(o["k\"ey"]?.stringValue == "a/b\\c\n\t\u{08}\u{0C}\r\u{00}\u{1F}é😀\u{2028}")
        let encoded = value.encodedString
        #expect(encoded == #"{"k\"ey":"a/b\\c\n\t\b\f\r\u0000\u001fé😀"# + "\u{2028}\"}")
        #expect(try JSONValue(parsing: encoded) == value)
    }

    @Test func generatedValuesSurviveEncodeAndReparse() throws {
        var gen = JSONTextGenerator(seed: 0x5EED_0010)
        for _ in 0..<1_000 {
            let text = gen.documentText()
            let value = try JSONValue(parsing: text)
            let encoded = value.encoded
            let again = try JSONParser.parse(encoded)
            #expect(again == value, "\(text.debugDescription)")
            #expect(again.encoded == encoded, "encoding is stable")
        }
    }

    @Test func keyOrderAndDuplicatesArePreserved() throws {
        let value = try JSONValue(parsing: #"{"z":1,"a":2,"m":3,"a":4}"#)
        var o = try #require(value.objectValue)
        #expect(o.keys == ["z", "a", "m", "a"])
        #expect(o["a"] == 4, "lookups see the last duplicate")
        o["a"] = "x"
        #expect(JSONValue.object(o).encodedString == #"{"z":1,"a":2,"m":3,"a":"x"}"#)
        o["a"] = nil
        #expect(o.keys == ["z", "m"])
        o["new"] = [1, nil, true]
        #expect(JSONValue.object(o).encodedString == #"{"z":1,"m":3,"new":[1,null,true]}"#)
    }

    @Test func literalsBuildTheExpectedTree() {
        let v: JSONValue = ["a": [1, 2.5, "s", nil, false], "b": [:]]
        #expect(v.encodedString == #"{"a":[1,2.5,"s",null,false],"b":{}}"#)
        #expect(JSONValue.null.isNull)
        #expect(JSONValue.bool(true).boolValue == true)
        #expect(JSONValue.string("x").arrayValue == nil)
    }
}
