import JSONCore

/// One record being converted: its bytes, and the bytes its derived ids are made from (the
/// original record's object, also when the recipe converts a rewritten copy of it).
struct Record {
    /// The bytes the workspace's layouts point into.
    let bytes: UnsafeBufferPointer<UInt8>
    /// The original record's JSON object, from `{` to `}`.
    let identity: UnsafeBufferPointer<UInt8>
    /// The recipe converting it.
    let format: ExportFormat
}

extension Workspace {
    /// The timestamp piece of a string value holding an ISO 8601 time, or a failure naming
    /// `field`.
    mutating func timestamp(_ record: Record, _ value: ValueRef, field: @autoclosure () -> String) throws(RecipeFailure) -> Piece {
        guard value.kind == .string else { throw .invalid(record.format, field(), "is not a timestamp string") }
        var parsed: Piece?
        if let text = value.plainText(record.bytes) {
            parsed = scratchTimestamp(text: text)
        } else {
            var decoded = RecordText.string(record.bytes, value.range)
            parsed = decoded.withUTF8 { scratchTimestamp(text: $0) }
        }
        guard let parsed else { throw .invalid(record.format, field(), "is not a valid timestamp") }
        return parsed
    }

    /// The timestamp piece of `millis`, or a failure naming `field` when it is out of range.
    mutating func timestamp(_ record: Record, millis: Int64, field: @autoclosure () -> String) throws(RecipeFailure) -> Piece {
        guard let piece = scratchTimestamp(epochMillis: millis) else { throw .invalid(record.format, field(), "is out of range") }
        return piece
    }

    /// The members of the object `value` (a validated object in `record`) into `layout`.
    static func skim(_ record: Record, _ value: ValueRef, into layout: inout ObjectLayout) -> Bool {
        guard value.kind == .object else { return false }
        return ObjectLayout.skimNested(record.bytes, value.range, reusing: &layout)
    }

    /// The object's `$set` object when it has one, else the object itself: Amplitude and
    /// PostHog write property updates either resolved or as a `$set` operation.
    mutating func unwrapSet(_ record: Record, _ value: ValueRef) -> Piece {
        guard value.kind == .object, Workspace.skim(record, value, into: &inner3) else { return .absent }
        if let set = inner3.member("$set", in: record.bytes), set.kind == .object {
            return .object(ValueRef(set), in: record.bytes)
        }
        return .object(value, in: record.bytes)
    }

    /// A lowercase copy of an ASCII string value (`"iOS"` → `"ios"`), absent when empty.
    mutating func lowercased(_ record: Record, _ value: ValueRef) -> Piece {
        guard value.kind == .string, value.range.count > 2, let text = value.plainText(record.bytes) else {
            return .scalar(value)
        }
        let start = UInt32(scratch.count)
        scratch.append(UInt8(ascii: "\""))
        for c in text { scratch.append(c >= 0x41 && c <= 0x5A ? c | 0x20 : c) }
        scratch.append(UInt8(ascii: "\""))
        return .scratch(start, UInt32(scratch.count))
    }
}

extension Workspace {
    /// The id in a string value after `prefix` (`$device:abc` → `abc`); absent when the string
    /// does not start with it or nothing follows it.
    func id(_ record: Record, _ value: ValueRef, after prefix: StaticString) -> Piece {
        guard value.kind == .string, RecordText.hasPrefix(record.bytes, value.range, prefix) else { return .absent }
        let start = value.range.lowerBound + 1 + prefix.utf8CodeUnitCount
        let end = value.range.upperBound - 1
        guard start < end else { return .absent }
        // The rest of the string, escapes kept as written, between new quotes.
        return .quoted(UInt32(start), UInt32(end))
    }
}
