import Foundation
import JSONCore

/// Whether an `ObjectLayout` describes exactly the object the parser read from the same bytes.
enum LayoutChecks {
    /// Members checked in detail per layout (the rest only by count), to bound the work per input.
    static let detailedMembers = 24

    /// Checks `layout` (of `buf`) against `object`: its range, and each member's span, key, value
    /// and kind; and that key lookups find the last member with the same bytes.
    static func matches(_ layout: ObjectLayout, _ object: JSONObject, _ buf: UnsafeBufferPointer<UInt8>, input: [UInt8]) {
        let r = layout.range
        fuzzCheck(
            r.lowerBound >= 0 && r.upperBound <= buf.count && r.count >= 2, "layout range \(r) of \(buf.count) bytes",
            input: input)
        // Safe to read: `r` was just checked to lie inside `buf` and to hold two bytes at least.
        fuzzCheck(
            buf[r.lowerBound] == UInt8(ascii: "{") && buf[r.upperBound - 1] == UInt8(ascii: "}"),
            "layout range \(r) is not {...}", input: input)
        fuzzCheck(
            layout.members.count == object.count, "layout has \(layout.members.count) members, the parser \(object.count)",
            input: input)
        for (i, m) in layout.members.enumerated().prefix(detailedMembers) {
            member(m, i, object.members[i], layout, buf, input: input)
        }
        var lookups = Set<[UInt8]>()
        for m in object.members.prefix(detailedMembers) where lookups.insert(Array(m.key.utf8)).inserted {
            lookup(m.key, layout, object, buf, input: input)
            // A canonically equivalent spelling is a different key (it may or may not occur).
            for variant in [m.key.decomposedStringWithCanonicalMapping, m.key.precomposedStringWithCanonicalMapping]
            where !variant.utf8.elementsEqual(m.key.utf8) {
                lookup(variant, layout, object, buf, input: input)
            }
        }
    }

    /// One member of a layout against the parsed member at the same position.
    static func member(
        _ m: JSONMember, _ i: Int, _ parsed: (key: String, value: JSONValue), _ layout: ObjectLayout,
        _ buf: UnsafeBufferPointer<UInt8>, input: [UInt8]
    ) {
        let r = layout.range
        fuzzCheck(
            m.span.lowerBound == m.key.lowerBound - 1 && m.span.upperBound == m.value.upperBound
                && r.lowerBound < m.span.lowerBound && m.span.upperBound < r.upperBound && m.key.upperBound < m.value.lowerBound,
            "member \(i) ranges: span \(m.span) key \(m.key) value \(m.value) in \(r)", input: input)
        // Safe to read: the member's ranges were just checked to lie inside `r`, inside `buf`.
        fuzzCheck(
            buf[m.key.lowerBound - 1] == UInt8(ascii: "\"") && buf[m.key.upperBound] == UInt8(ascii: "\""),
            "member \(i): the key range is not inside quotes", input: input)
        let rawKey = checkedSlice(buf, m.key)
        fuzzCheck(
            m.keyHasEscapes == rawKey.contains(UInt8(ascii: "\\")), "member \(i): keyHasEscapes is \(m.keyHasEscapes)",
            input: input)
        let key = layout.keyString(m, in: buf)
        fuzzCheck(
            key.utf8.elementsEqual(parsed.key.utf8), "member \(i): key \(key.debugDescription) != \(parsed.key.debugDescription)",
            input: input)
        let valueBytes = checkedSlice(buf, m.value)
        guard let value = try? JSONParser.parse(valueBytes) else {
            fuzzFailure("member \(i): its value range \(m.value) does not parse", input: input)
        }
        fuzzCheck(value == parsed.value, "member \(i): value \(value) != \(parsed.value)", input: input)
        fuzzCheck(m.kind == DocumentChecks.kindOf(value), "member \(i): kind \(m.kind) for \(value)", input: input)
        if m.kind == .string {
            let s = JSONLayoutValues.stringContent(buf, m.value)
            fuzzCheck(.string(s) == value, "member \(i): stringContent \(s.debugDescription) != \(value)", input: input)
        }
    }

    /// `index(of:)`, `member(_:in:)` and `string(_:in:)` for `key` find the last member whose
    /// key has the same bytes.
    static func lookup(
        _ key: String, _ layout: ObjectLayout, _ object: JSONObject, _ buf: UnsafeBufferPointer<UInt8>, input: [UInt8]
    ) {
        let expected = object.members.lastIndex { $0.key.utf8.elementsEqual(key.utf8) }
        let found = layout.index(of: key, in: buf)
        fuzzCheck(
            found == expected,
            "index(of: \(key.debugDescription)) is \(String(describing: found)), expected \(String(describing: expected))",
            input: input)
        fuzzCheck(
            layout.member(key, in: buf) == expected.map { layout.members[$0] }, "member(\(key.debugDescription)) differs",
            input: input)
        let string = layout.string(key, in: buf)
        let expectedString = expected.flatMap { object.members[$0].value.stringValue }
        fuzzCheck(
            string?.utf8.elementsEqual(expectedString?.utf8 ?? "".utf8) ?? (expectedString == nil),
            "string(\(key.debugDescription)) is \(String(describing: string))", input: input)
        fuzzCheck((string == nil) == (expectedString == nil), "string(\(key.debugDescription)) presence differs", input: input)
    }
}
