import JSONCore

extension Workspace {
    /// Converts a copy of `record` in which the JSON-encoded string `member` (an object written
    /// as a string, as some exports write `properties` or `payload`) is replaced by the object it
    /// encodes. The copy's events keep the original record's derived ids. Fails, naming `field`,
    /// when the string does not encode an object.
    mutating func convertDecoding(
        _ record: Record, _ member: JSONMember, field: String, _ out: inout [UInt8], _ events: inout [Range<Int>]
    ) throws(RecipeFailure) {
        let decoded = Array(RecordText.string(record.bytes, member.value).utf8)
        let first = decoded.firstIndex { !$0.isJSONWhitespace }
        let notAnObject = RecipeFailure.invalid(record.format, field, "is a string that does not hold a JSON object")
        guard let first, decoded[first] == UInt8(ascii: "{") else { throw notAnObject }
        var copy = rewritten
        rewritten = []
        copy.removeAll(keepingCapacity: true)
        copy.append(contentsOf: UnsafeBufferPointer(rebasing: record.bytes[..<member.value.lowerBound]))
        copy.append(contentsOf: decoded)
        copy.append(contentsOf: UnsafeBufferPointer(rebasing: record.bytes[member.value.upperBound...]))
        let result: Result<Void, RecipeFailure> = copy.withUnsafeBufferPointer { bytes in
            do throws(RecipeFailure) {
                try ExportRecipe.convert(bytes, identity: record.identity, record.format, &self, &out, &events)
                return .success(())
            } catch {
                // The copy is invalid only where the decoded string is: name the string.
                let invalid = error.reason == "invalid_json" || error.reason == "not_an_object"
                return .failure(invalid ? notAnObject : error)
            }
        }
        rewritten = copy
        try result.get()
    }
}
