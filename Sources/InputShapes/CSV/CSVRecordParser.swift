/// What ``CSVRecordParser`` found at the start of the bytes it was given.
enum CSVParseOutcome: Equatable {
    /// A whole record of this many bytes (its line break included).
    case record(length: Int)
    /// A blank line of this many bytes (its line break included): not a record.
    case blank(length: Int)
    /// The bytes end inside a record: more are needed.
    case needMore
}

/// Splits one record off the front of a buffer: the inner loop of ``CSVRecordReader``.
struct CSVRecordParser {
    /// The dialect's delimiter.
    let delimiter: UInt8
    /// Whether a field starting with `"` is quoted.
    let quoting: Bool

    /// `"`.
    static let quote = UInt8(ascii: "\"")
    /// Line feed.
    static let lf: UInt8 = 0x0A
    /// Carriage return.
    static let cr: UInt8 = 0x0D

    /// Parses the record at the start of `input` into `record` (its fields only).
    ///
    /// - Parameters:
    ///   - atEnd: whether `input` runs to the end of the file (else a record cut at its end
    ///     needs more bytes).
    ///   - number: the record's number, for errors.
    ///   - offset: the file offset of `input[0]`, for errors.
    func parse(
        _ input: UnsafeBufferPointer<UInt8>, atEnd: Bool, into record: inout CSVRecord, number: Int, offset: Int
    ) throws(CSVError) -> CSVParseOutcome {
        let n = input.count
        guard n > 0 else { return .needMore }
        if input[0] == Self.lf || input[0] == Self.cr {
            guard let length = lineBreak(input, at: 0, atEnd: atEnd) else { return .needMore }
            return .blank(length: length)
        }
        record.removeFields()
        var i = 0
        while true {
            if quoting, i < n, input[i] == Self.quote {
                guard let next = try quotedField(input, from: i, atEnd: atEnd, into: &record, number: number, offset: offset)
                else { return .needMore }
                i = next
            } else {
                let from = i
                i = unquotedEnd(input, from: i)
                // `from <= i <= input.count`; the bytes are copied at once.
                record.appendToField(UnsafeBufferPointer(rebasing: input[from..<i]))
            }
            record.endField()
            if i == n { return atEnd ? .record(length: n) : .needMore }
            let c = input[i]
            if c == delimiter {
                i += 1
                continue
            }
            if c == Self.lf || c == Self.cr {
                guard let length = lineBreak(input, at: i, atEnd: atEnd) else { return .needMore }
                return .record(length: i + length)
            }
            throw .characterAfterQuote(record: number, offset: offset + i)
        }
    }

    /// The length of the line break at `i` (CRLF, LF or a lone CR), or nil when a CR ends the
    /// bytes before the end of the file (an LF may follow).
    @inline(__always)
    func lineBreak(_ input: UnsafeBufferPointer<UInt8>, at i: Int, atEnd: Bool) -> Int? {
        guard input[i] == Self.cr else { return 1 }
        if i + 1 < input.count { return input[i + 1] == Self.lf ? 2 : 1 }
        return atEnd ? 1 : nil
    }

    /// The end of the unquoted field starting at `i`: the first delimiter or line break, or the
    /// end of the bytes.
    @inline(__always)
    func unquotedEnd(_ input: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        let d = delimiter
        var i = start
        let n = input.count
        while i < n {
            let c = input[i]
            if c == d || c == Self.lf || c == Self.cr { return i }
            i += 1
        }
        return n
    }

    /// Copies the quoted field opening at `open` into `record` and returns the offset after its
    /// closing quote, or nil when the bytes end before it is known to be closed.
    func quotedField(
        _ input: UnsafeBufferPointer<UInt8>, from open: Int, atEnd: Bool, into record: inout CSVRecord,
        number: Int, offset: Int
    ) throws(CSVError) -> Int? {
        let n = input.count
        var i = open + 1
        while true {
            var q = i
            while q < n, input[q] != Self.quote { q += 1 }
            guard q < n else {
                if atEnd { throw .unclosedQuote(record: number, offset: offset + open) }
                return nil
            }
            // `i <= q < input.count`; the bytes are copied at once.
            record.appendToField(UnsafeBufferPointer(rebasing: input[i..<q]))
            if q + 1 < n, input[q + 1] == Self.quote {
                record.appendToField(Self.quote)
                i = q + 2
                continue
            }
            // A quote that ends the bytes may be the first of a `""` pair.
            if q + 1 == n, !atEnd { return nil }
            return q + 1
        }
    }
}
