/// Percent-encoding as Signature Version 4 and S3 define it.
///
/// Every byte of the UTF-8 form is written as `%XX` (upper-case hex) except the unreserved
/// characters `A-Z a-z 0-9 - . _ ~`, and, in a path, `/`. Nothing is encoded twice: the input is
/// the plain text (a key, a query value), never text that is already encoded.
package enum URIEncoding {
    /// Encodes `text` for a query name or value (`/` encoded too).
    package static func query(_ text: String) -> String { encode(text, keepingSlash: false) }

    /// Encodes `text` for an S3 path: every key byte once, `/` kept (S3 signs the path as sent,
    /// without the second encoding other services use).
    package static func path(_ text: String) -> String { encode(text, keepingSlash: true) }

    /// Decodes `%XX` escapes and, when `plusIsSpace`, `+` as a space (the form encoding S3 uses
    /// for keys in listings with `encoding-type=url`). Returns nil for a malformed escape or bytes
    /// that are not UTF-8.
    package static func decode(_ text: String, plusIsSpace: Bool) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            case UInt8(ascii: "+") where plusIsSpace:
                bytes.append(UInt8(ascii: " "))
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func encode(_ text: String, keepingSlash: Bool) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) || (keepingSlash && byte == UInt8(ascii: "/")) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}
