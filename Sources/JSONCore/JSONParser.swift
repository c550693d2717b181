/// Builds ``JSONValue`` trees from bytes, with full validation.
public enum JSONParser {
    /// Parses one complete JSON document.
    public static func parse(_ bytes: some Collection<UInt8>) throws(JSONError) -> JSONValue {
        let result: Result<JSONValue, JSONError> =
            bytes.withContiguousStorageIfAvailable { buffer in parseBuffer(buffer) }
            ?? Array(bytes).withUnsafeBufferPointer { parseBuffer($0) }
        return try result.get()
    }

    static func parseBuffer(_ buffer: UnsafeBufferPointer<UInt8>) -> Result<JSONValue, JSONError> {
        do throws(JSONError) {
            var s = JSONScanner(buffer)
            let v = try s.parseValue(buffer, depth: 0)
            s.skipWhitespace()
            guard s.offset == buffer.count else { throw s.fail("unexpected data after the JSON value") }
            return .success(v)
        } catch {
            return .failure(error)
        }
    }
}

extension JSONScanner {
    /// Parses the value at the current offset into a tree.
    mutating func parseValue(_ buffer: UnsafeBufferPointer<UInt8>, depth: Int) throws(JSONError) -> JSONValue {
        skipWhitespace()
        guard i < end else { throw fail("unexpected end of input, expected a value") }
        let start = i
        switch base[i] {
        case UInt8(ascii: "{"):
            guard depth < JSONScanner.maximumDepth else {
                throw JSONError(.tooDeep, at: i, "nesting deeper than \(JSONScanner.maximumDepth)")
            }
            i += 1
            var members: [(key: String, value: JSONValue)] = []
            skipWhitespace()
            if i < end, base[i] == UInt8(ascii: "}") {
                i += 1
                return .object(JSONObject(members))
            }
            repeat {
                let (r, esc) = try memberKey()
                let key = JSONStrings.decode(buffer, r, hasEscapes: esc)
                members.append((key: key, value: try parseValue(buffer, depth: depth + 1)))
            } while try !endOfItem(closing: UInt8(ascii: "}"), "object")
            return .object(JSONObject(members))
        case UInt8(ascii: "["):
            guard depth < JSONScanner.maximumDepth else {
                throw JSONError(.tooDeep, at: i, "nesting deeper than \(JSONScanner.maximumDepth)")
            }
            i += 1
            var items: [JSONValue] = []
            skipWhitespace()
            if i < end, base[i] == UInt8(ascii: "]") {
                i += 1
                return .array(items)
            }
            repeat {
                items.append(try parseValue(buffer, depth: depth + 1))
            } while try !endOfItem(closing: UInt8(ascii: "]"), "array")
            return .array(items)
        case UInt8(ascii: "\""):
            let (r, esc) = try scanString()
            return .string(JSONStrings.decode(buffer, r, hasEscapes: esc))
        default:
            let kind = try scanValue(depth: depth)
            switch kind {
            case .null: return .null
            case .bool: return .bool(base[start] == UInt8(ascii: "t"))
            default:
                let text = String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<i]), as: UTF8.self)
                return .number(JSONNumber(uncheckedText: text))
            }
        }
    }
}
