import JSONCore

/// `JSONScanner.validate`, `JSONParser.parse` and `ObjectLayout.scanDocument` (both forms) on
/// the same bytes: the same verdict, the same error, and a layout that agrees with the value.
enum DocumentChecks {
    /// Scratch storage for ``ObjectLayout/scanDocument(_:reusing:)``, kept from input to input as
    /// the replay hot path keeps it from line to line. The fuzzer calls its entry point from one
    /// thread only, so no two calls use it at once.
    nonisolated(unsafe) static var scratch = ObjectLayout()

    /// Checks the three readers on `buf` (an exactly-sized copy of `input`). Returns the value,
    /// and the layout for an object, when the document is valid.
    static func check(_ buf: UnsafeBufferPointer<UInt8>, input: [UInt8]) -> (value: JSONValue, layout: ObjectLayout?)? {
        let validated = validate(buf)
        let parsed = parse(buf)
        let layout = scanDocument(buf)
        switch (validated, parsed) {
        case (.success(let kind), .success(let value)):
            fuzzCheck(kind == kindOf(value), "validate says \(kind), the parser read \(value)", input: input)
        case (.failure(let a), .failure(let b)):
            fuzzCheck(a == b, "validate and parse fail differently: \(a) / \(b)", input: input)
        default:
            fuzzFailure("validate and parse disagree: \(validated) / \(parsed)", input: input)
        }
        checkReusingScan(buf, layout, input: input)
        checkSkim(buf, layout, input: input)
        switch (parsed, layout) {
        case (.success(.object(let object)), .success(let layout)):
            LayoutChecks.matches(layout, object, buf, input: input)
            let trimmed = trimmedRange(buf)
            fuzzCheck(layout.range == trimmed, "layout range \(layout.range), the document is \(trimmed)", input: input)
            return (.object(object), layout)
        case (.success(let value), .failure(let error)):
            fuzzCheck(value.objectValue == nil, "layout rejects an object: \(error)", input: input)
            fuzzCheck(error.kind == .unexpectedType, "layout rejects valid JSON: \(error)", input: input)
            return (value, nil)
        case (.failure(let p), .failure(let l)):
            fuzzCheck(p == l, "parser and layout fail differently: \(p) / \(l)", input: input)
            return nil
        case (_, .success):
            fuzzFailure("the layout accepts what the parser reads as \(parsed)", input: input)
        }
    }

    /// The reusing scan must give the same members as the fresh one, and nothing on failure.
    static func checkReusingScan(_ buf: UnsafeBufferPointer<UInt8>, _ fresh: Result<ObjectLayout, JSONError>, input: [UInt8]) {
        var reused: Result<Void, JSONError> = .success(())
        do throws(JSONError) {
            try ObjectLayout.scanDocument(buf, reusing: &scratch)
        } catch {
            reused = .failure(error)
        }
        switch (fresh, reused) {
        case (.success(let layout), .success):
            fuzzCheck(
                layout.members == scratch.members && layout.range == scratch.range, "the reusing scan differs", input: input)
        case (.failure(let a), .failure(let b)):
            fuzzCheck(a == b, "the reusing scan fails differently: \(a) / \(b)", input: input)
            fuzzCheck(scratch.members.isEmpty && scratch.range == 0..<0, "a failed reusing scan left members", input: input)
        default:
            fuzzFailure("the reusing scan disagrees: \(fresh) / \(reused)", input: input)
        }
    }

    /// Scratch storage for ``ObjectLayout/skimDocument(_:reusing:)`` (one thread, as above).
    nonisolated(unsafe) static var skimmed = ObjectLayout()

    /// The skim (no validation) must find exactly the scan's members on every valid object, and
    /// stay inside the buffer on anything else (AddressSanitizer watches it).
    static func checkSkim(_ buf: UnsafeBufferPointer<UInt8>, _ scanned: Result<ObjectLayout, JSONError>, input: [UInt8]) {
        let ok = ObjectLayout.skimDocument(buf, reusing: &skimmed)
        if case .success(let layout) = scanned {
            fuzzCheck(ok, "the skim rejects a valid object", input: input)
            fuzzCheck(skimmed.members == layout.members && skimmed.range == layout.range, "the skim finds other members", input: input)
        } else if !ok {
            fuzzCheck(skimmed.members.isEmpty, "a failed skim left members", input: input)
        }
    }

    static func validate(_ buf: UnsafeBufferPointer<UInt8>) -> Result<JSONKind, JSONError> {
        do throws(JSONError) { return .success(try JSONScanner.validate(buf)) } catch { return .failure(error) }
    }

    static func parse(_ buf: UnsafeBufferPointer<UInt8>) -> Result<JSONValue, JSONError> {
        do throws(JSONError) { return .success(try JSONParser.parse(buf)) } catch { return .failure(error) }
    }

    static func scanDocument(_ buf: UnsafeBufferPointer<UInt8>) -> Result<ObjectLayout, JSONError> {
        do throws(JSONError) { return .success(try ObjectLayout.scanDocument(buf)) } catch { return .failure(error) }
    }

    /// The kind of a parsed value.
    static func kindOf(_ value: JSONValue) -> JSONKind {
        switch value {
        case .null: .null
        case .bool: .bool
        case .number: .number
        case .string: .string
        case .array: .array
        case .object: .object
        }
    }

    /// `buf` without leading and trailing JSON whitespace.
    static func trimmedRange(_ buf: UnsafeBufferPointer<UInt8>) -> Range<Int> {
        func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }
        var lo = 0
        var hi = buf.count
        while lo < hi, isSpace(buf[lo]) { lo += 1 }
        while hi > lo, isSpace(buf[hi - 1]) { hi -= 1 }
        return lo..<hi
    }
}
