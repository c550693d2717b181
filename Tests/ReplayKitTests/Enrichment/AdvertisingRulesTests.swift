import ReplayKit
import Testing

/// Which advertisingIds may be sent: a UUID's text, letters in either case, not all zeros.
struct AdvertisingRulesTests {
    /// The rule, byte by byte: 36 bytes in quotes, dashes at 8, 13, 18 and 23, hex digits
    /// elsewhere, and at least one digit that is not zero.
    static func usable(_ quoted: [UInt8]) -> Bool {
        guard quoted.count == 38 else { return false }
        let text = quoted[1..<37]
        var nonZero = false
        for (i, c) in text.enumerated() {
            if [8, 13, 18, 23].contains(i) {
                guard c == UInt8(ascii: "-") else { return false }
            } else {
                guard (0x30...0x39).contains(c) || (0x61...0x66).contains(c) || (0x41...0x46).contains(c) else { return false }
                if c != UInt8(ascii: "0") { nonZero = true }
            }
        }
        return nonZero
    }

    /// Every one-byte change of a mixed-case id, an all-zero one and one with a single non-zero
    /// digit, and ids one byte short or long.
    @Test(arguments: [
        "7A3CBB5E-9f16-4a6d-8E4B-2C1F0D9E8A77", "00000000-0000-0000-0000-000000000000", "00000000-0000-0000-0000-000000000001",
    ])
    func usableExactlyWhenAUUIDThatIsNotAllZeros(_ id: String) {
        let quoted = Array("\"\(id)\"".utf8)
        for place in 1..<37 {
            for value in 0...255 {
                var changed = quoted
                changed[place] = UInt8(value)
                let verdict = changed.withUnsafeBufferPointer { AdvertisingRules.isUsable($0, 0..<$0.count) }
                #expect(verdict == Self.usable(changed), "byte \(value) at \(place)")
            }
        }
        for other in [Array(quoted.dropLast(2)) + [UInt8(ascii: "\"")], Array(quoted.dropLast()) + Array("0\"".utf8)] {
            #expect(!other.withUnsafeBufferPointer { AdvertisingRules.isUsable($0, 0..<$0.count) })
        }
    }
}
