import TestSupport

/// Damages valid JSON text in the ways real NDJSON lines break: truncation, flipped bytes,
/// inserted garbage, invalid UTF-8, lone surrogates, raw control characters, trailing commas,
/// leading zeros and excessive nesting. A mutation may leave the text valid; the differential
/// test only requires that both parsers agree.
struct JSONMutator {
    static let flipBytes: [UInt8] = Array("{}[]\",:\\ a0-.eE+tfn".utf8) + [0x00, 0x01, 0x1F, 0x7F, 0x80, 0xBF, 0xC0, 0xFF]
    static let garbage: [[UInt8]] = [
        Array(",".utf8), Array(",,".utf8), Array("}".utf8), Array("]".utf8), Array("\"".utf8), Array("\\".utf8),
        Array("nul".utf8), Array("tru".utf8), Array("01".utf8), Array("-".utf8), Array("1.".utf8), Array(".5".utf8),
        Array("1e".utf8), Array("+1".utf8), Array("NaN".utf8), Array("Infinity".utf8), Array("'x'".utf8),
        Array("//".utf8), Array("/* */".utf8), Array("\\ud800".utf8), Array("\\udc00".utf8),
        Array("\\ud800\\u0041".utf8), Array("\\udbff\\ud800".utf8), Array("\\x41".utf8), Array("\\u12G4".utf8),
        Array("\\U0041".utf8), Array("\\u00".utf8), Array("\\a".utf8),
        [0xFF], [0xFE], [0xC0, 0x80], [0xC1, 0xBF], [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF], [0xE2, 0x82],
        [0xE0, 0x80, 0x80], [0xF0, 0x80, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xF4, 0x90, 0x80, 0x80],
        [0xF0, 0x9F, 0x98], [0x80], [0x01], [0x0A], [0x09], [0x1F], [0x00], [0x0B], [0x0C],
        Array("\u{00A0}".utf8), Array("\u{FEFF}".utf8),
    ]

    /// Returns a damaged copy of `text`.
    static func mutate(_ text: [UInt8], using rng: inout SeededRandom) -> [UInt8] {
        var b = text
        guard !b.isEmpty else { return Array("{".utf8) }
        switch rng.int(0...8) {
        case 0:  // truncate
            b.removeSubrange(rng.int(0...(b.count - 1))...)
        case 1:  // flip one byte
            b[rng.int(0...(b.count - 1))] = rng.pick(flipBytes)
        case 2:  // insert garbage anywhere
            b.insert(contentsOf: rng.pick(garbage), at: rng.int(0...b.count))
        case 3:  // insert garbage just inside a string
            let quotes = b.indices.filter { b[$0] == UInt8(ascii: "\"") }
            let at = quotes.isEmpty ? 0 : rng.pick(quotes) + 1
            b.insert(contentsOf: rng.pick(garbage), at: at)
        case 4:  // trailing comma before a closer
            let closers = b.indices.filter { b[$0] == UInt8(ascii: "}") || b[$0] == UInt8(ascii: "]") }
            if let at = closers.isEmpty ? nil : rng.pick(closers) { b.insert(UInt8(ascii: ","), at: at) }
        case 5:  // leading zero before a digit run
            let starts = b.indices.filter { k in
                (b[k] &- 0x30) < 10 && (k == 0 || (b[k - 1] &- 0x30) >= 10)
            }
            if let at = starts.isEmpty ? nil : rng.pick(starts) { b.insert(UInt8(ascii: "0"), at: at) }
        case 6:  // deep nesting around the value, near the limit
            let n = rng.int(500...520)
            b = Array(repeating: UInt8(ascii: "["), count: n) + b + Array(repeating: UInt8(ascii: "]"), count: n)
        case 7:  // delete one byte
            b.remove(at: rng.int(0...(b.count - 1)))
        default:  // two mutations
            b = mutate(mutate(b, using: &rng), using: &rng)
        }
        return b
    }
}
