/// Writes ``JSONValue`` trees as compact JSON.
public enum JSONWriter {
    /// Appends the compact encoding of `value` to `out`.
    public static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
        case .bool(let b): out.append(contentsOf: b ? Array("true".utf8) : Array("false".utf8))
        case .number(let n): out.append(contentsOf: n.text.utf8)
        case .string(let s): JSONStrings.appendQuoted(s, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (k, item) in items.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                write(item, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (k, member) in object.members.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                JSONStrings.appendQuoted(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                write(member.value, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }
}
