import TestSupport

/// Generates JSON text directly as bytes (never through JSONCore's writer), so the parser is
/// checked against an independent encoding: unicode, every escape form, numbers of all shapes,
/// nested values and random insignificant whitespace.
struct JSONTextGenerator {
    var rng: SeededRandom
    /// Exponents stay in this range so Foundation and `Double(text)` agree (see DifferentialTests).
    var maxExponent = 300

    init(seed: UInt64) { rng = SeededRandom(seed: seed) }

    static let rawPieces: [String] = [
        "a", "page", "Order Completed", " ", "é", "ü", "ß", "中文", "日本語", "😀", "👍🏽", "e\u{301}", "\u{7F}",
        "\u{10FFFF}", "\u{FFFD}", "\u{2028}", "'", "/", "<tag>", "0", "{}", "[1,2]", ":", ",", "Ω≈ç√",
        "\u{FEFF}",  // Foundation drops it at the start of a string or right after an escape
    ]
    static let escapePieces: [String] = [
        "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t", "\\u00e9", "\\u00E9", "\\u0000", "\\u001f",
        "\\uD83D\\uDE00", "\\ud83d\\ude00", "\\uDBFF\\uDFFF", "\\uFFFF", "\\uABCD", "\\u2028", "\\u0041",
        "\\n\u{FEFF}", "\\u00e9\u{FEFF}", "\\uFEFF",  // a raw U+FEFF right after an escape, and an escaped one
    ]

    mutating func whitespace() -> String {
        guard rng.chance(0.15) else { return "" }
        return String((0..<rng.int(1...3)).map { _ in rng.pick([" ", "\t", "\n", "\r"]) as Character })
    }

    mutating func stringText() -> String {
        var s = "\""
        for _ in 0..<rng.int(0...6) {
            s += rng.chance(0.3) ? rng.pick(Self.escapePieces) : rng.pick(Self.rawPieces)
        }
        return s + "\""
    }

    mutating func digits(_ count: Int, leadingNonZero: Bool) -> String {
        var s = ""
        for k in 0..<count {
            s += String(k == 0 && leadingNonZero ? rng.int(1...9) : rng.int(0...9))
        }
        return s
    }

    mutating func numberText() -> String {
        var s = rng.chance(0.3) ? "-" : ""
        switch rng.int(0...9) {
        case 0: s += "0"
        case 1...4: s += digits(rng.int(1...18), leadingNonZero: true)
        case 5:  // 19 digits (Foundation reads negative ones as NSDecimalNumber) and beyond Int64
            s += digits(rng.chance(0.5) ? 19 : rng.int(20...30), leadingNonZero: true)
        default: s += rng.chance(0.5) ? "0" : digits(rng.int(1...6), leadingNonZero: true)
        }
        if rng.chance(0.35) { s += "." + digits(rng.int(1...8), leadingNonZero: false) }
        if rng.chance(0.2) {
            s += rng.pick(["e", "E"]) + rng.pick(["", "+", "-"]) + String(rng.int(0...maxExponent / 10))
        }
        return s
    }

    mutating func valueText(depth: Int) -> String {
        let leafOnly = depth >= 4
        switch rng.int(0...(leafOnly ? 5 : 7)) {
        case 0: return "null"
        case 1: return rng.chance(0.5) ? "true" : "false"
        case 2, 3: return numberText()
        case 4, 5: return stringText()
        case 6:
            let items = (0..<rng.int(0...4)).map { _ in whitespace() + valueText(depth: depth + 1) + whitespace() }
            return "[" + items.joined(separator: ",") + (items.isEmpty ? whitespace() : "") + "]"
        default:
            return objectText(depth: depth + 1, memberCount: rng.int(0...4))
        }
    }

    mutating func objectText(depth: Int, memberCount: Int) -> String {
        var members: [String] = []
        for _ in 0..<memberCount {
            members.append(whitespace() + stringText() + whitespace() + ":" + whitespace() + valueText(depth: depth) + whitespace())
        }
        return "{" + members.joined(separator: ",") + (members.isEmpty ? whitespace() : "") + "}"
    }

    /// A Segment-style event object, optionally with nested properties and odd keys.
    mutating func eventText() -> String {
        let type = rng.pick(["track", "identify", "page", "screen", "group", "alias"])
        var members = ["\"type\":\"\(type)\""]
        if rng.chance(0.8) { members.append("\"messageId\":\"m-\(rng.int(0...999_999))\"") }
        if rng.chance(0.7) { members.append("\"userId\":" + stringText()) }
        if rng.chance(0.5) { members.append("\"anonymousId\":\"anon-\(rng.int(0...99_999))\"") }
        members.append("\"timestamp\":\"2026-11-22T06:\(rng.int(10...59)):00.\(rng.int(100...999))Z\"")
        members.append("\"properties\":" + objectText(depth: 1, memberCount: rng.int(0...5)))
        if rng.chance(0.2) { members.append(stringText() + ":" + valueText(depth: 1)) }
        if rng.chance(0.1) { members.append("\"type\":\"track\"") }  // duplicate key
        return whitespace() + "{" + members.joined(separator: ",") + "}" + whitespace()
    }

    /// Any JSON document: mostly event objects, sometimes bare values (fragments).
    mutating func documentText() -> String {
        rng.chance(0.85) ? eventText() : whitespace() + valueText(depth: 0) + whitespace()
    }
}
