import JSONCore

/// What became of a cell.
enum CellOutcome: Equatable {
    /// Its JSON value was appended.
    case written
    /// It is empty: nothing was appended.
    case empty
    /// It is not a value of its type, for this reason: nothing was appended.
    case invalid(String)
}

/// Turns one cell into the JSON value of its column's type.
enum CellConversion {
    /// Appends the JSON value of `cell` read as `type` to `out`.
    static func append(_ cell: UnsafeBufferPointer<UInt8>, as type: CSVCellType, to out: inout [UInt8]) -> CellOutcome {
        if case .string = type { return appendString(cell, to: &out) }
        let text = trimmed(cell)
        guard !text.isEmpty else { return .empty }
        switch type {
        case .string:
            return appendString(cell, to: &out)  // taken above, untrimmed
        case .number:
            return appendNumber(text, to: &out)
        case .integer:
            guard isJSONInteger(text) else { return .invalid("not an integer") }
            out.append(contentsOf: text)
            return .written
        case .boolean:
            guard let flag = boolean(text) else { return .invalid("not a boolean (true/false, 1/0, yes/no)") }
            out.append(contentsOf: flag ? Array("true".utf8) : Array("false".utf8))
            return .written
        case .json:
            do {
                _ = try JSONScanner.validate(text)
            } catch {
                return .invalid("not JSON (\(error.message) at byte \(error.offset + 1) of the cell)")
            }
            JSONCompaction.append(text, to: &out)
            return .written
        case .timestamp(let unit):
            return TimestampCell.append(text, unit: unit, to: &out)
        }
    }

    /// Appends `cell` as a JSON string, when it is valid UTF-8.
    static func appendString(_ cell: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) -> CellOutcome {
        guard !cell.isEmpty else { return .empty }
        if isPlainASCII(cell) {
            // Nothing to escape or validate: quote, copy, quote, in one reservation.
            out.appendBytes(upTo: cell.count + 2) { cursor in
                cursor.write(UInt8(ascii: "\""))
                cursor.write(cell)
                cursor.write(UInt8(ascii: "\""))
            }
            return .written
        }
        guard UTF8Check.isValid(cell) else { return .invalid("not valid UTF-8") }
        JSONStrings.appendQuotedBytes(cell, to: &out)
        return .written
    }

    /// Whether every byte is printable ASCII other than `"` and `\\` (so the bytes are a JSON
    /// string's content as they are).
    static func isPlainASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let n = bytes.count
        if let base = bytes.baseAddress {
            let ones: UInt64 = 0x0101_0101_0101_0101
            while n - i >= 8 {
                // `n - i >= 8` keeps the 8-byte read inside the buffer; loadUnaligned, because a
                // byte buffer has no alignment.
                let x = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                let quote = x ^ (ones &* 0x22)
                let backslash = x ^ (ones &* 0x5C)
                // High bit set per lane that is >= 0x80, < 0x20, `"` or `\\` (any true lane
                // makes the word non-zero; borrows cannot clear a true lane's flag).
                let flagged =
                    (x | ((x &- ones &* 0x20) & ~x) | ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash))
                    & 0x8080_8080_8080_8080
                if flagged != 0 { return false }
                i += 8
            }
        }
        while i < n {
            let c = bytes[i]
            if c < 0x20 || c >= 0x80 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") { return false }
            i += 1
        }
        return true
    }

    /// `cell` without the spaces and tabs around it.
    static func trimmed(_ cell: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var lower = 0
        var upper = cell.count
        while lower < upper, cell[lower] == 0x20 || cell[lower] == 0x09 { lower += 1 }
        while upper > lower, cell[upper - 1] == 0x20 || cell[upper - 1] == 0x09 { upper -= 1 }
        // `lower <= upper <= cell.count`: a view of part of the caller's cell, valid as long as it.
        return UnsafeBufferPointer(rebasing: cell[lower..<upper])
    }

    /// Appends JSON number text as it is, when it is exactly one JSON number.
    static func appendNumber(_ text: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) -> CellOutcome {
        // JSON's number grammar (RFC 8259) rejects `+1`, `.5`, `01`, `1,5`, `NaN` and `Infinity`.
        guard (try? JSONScanner.validate(text)) == .number else { return .invalid("not a JSON number") }
        out.append(contentsOf: text)
        return .written
    }

    /// Whether `text` is `-?(0|[1-9][0-9]*)`.
    static func isJSONInteger(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = text.first == UInt8(ascii: "-") ? 1 : 0
        guard i < text.count else { return false }
        if text[i] == UInt8(ascii: "0") { return i + 1 == text.count }
        while i < text.count {
            guard text[i] &- UInt8(ascii: "0") < 10 else { return false }
            i += 1
        }
        return true
    }

    /// The boolean `text` spells (true/false, 1/0, yes/no, any case), if any.
    static func boolean(_ text: UnsafeBufferPointer<UInt8>) -> Bool? {
        for (word, value) in booleanWords where word.count == text.count {
            var same = true
            for k in 0..<word.count {
                let c = text[k]
                let lower = c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z") ? c | 0x20 : c
                if lower != word[k] {
                    same = false
                    break
                }
            }
            if same { return value }
        }
        return nil
    }

    /// The words ``boolean(_:)`` accepts, lowercase.
    private static let booleanWords: [([UInt8], Bool)] = [
        (Array("true".utf8), true), (Array("false".utf8), false), (Array("1".utf8), true), (Array("0".utf8), false),
        (Array("yes".utf8), true), (Array("no".utf8), false),
    ]
}
