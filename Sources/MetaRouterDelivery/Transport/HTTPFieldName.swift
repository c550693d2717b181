/// HTTP field names, which compare without regard to case (RFC 9110, section 5.1).
enum HTTPFieldName {
    /// Whether `a` and `b` name the same field: equal bytes, ASCII letters matched in either
    /// case. A field name is an ASCII token; other bytes must be equal. Foundation's locale-aware
    /// comparison would cost far more, and the engine looks up `Retry-After` in every answer.
    static func same(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count
            && a.utf8.elementsEqual(b.utf8) { x, y in
                x == y || (x | 0x20 == y | 0x20 && (x | 0x20) &- UInt8(ascii: "a") < 26)
            }
    }
}
