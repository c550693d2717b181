import Foundation
@_spi(PerLine) import MetaRouter
import Testing

/// The one UUID text writer, behind generated messageIds and derived anonymousIds.
struct UUIDTextTests {
    static func text(_ first: UInt64, _ second: UInt64) -> String {
        var bytes = [UInt8](repeating: 0, count: UUIDText.count)
        bytes.withUnsafeMutableBufferPointer { UUIDText.write(first, second, to: $0.baseAddress!) }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func writesWhatFoundationWritesForRandomUUIDs() {
        for _ in 0..<2_000 {
            let uuid = UUID()
            let (first, second) = withUnsafeBytes(of: uuid.uuid) { raw in
                // The tuple's 16 bytes in order; loadUnaligned needs no alignment or binding.
                (
                    UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                    UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
                )
            }
            #expect(Self.text(first, second) == uuid.uuidString.lowercased())
        }
    }

    @Test func everyNibbleAtEveryPlace() {
        // Bytes 00 11 22 … ff, then ff ee dd … 00.
        let first: UInt64 = 0x7766_5544_3322_1100
        let second: UInt64 = 0xFFEE_DDCC_BBAA_9988
        #expect(Self.text(first, second) == "00112233-4455-6677-8899-aabbccddeeff")
        #expect(Self.text(~second, ~first) == "77665544-3322-1100-ffee-ddccbbaa9988")
    }

    @Test func hexDigitsComeHighNibbleFirstInByteOrder() {
        // Bytes 01 23 ab ef (lowest first).
        let word = UUIDText.hexDigits(0xEFAB_2301).littleEndian
        #expect(withUnsafeBytes(of: word) { String(decoding: $0, as: UTF8.self) } == "0123abef")
        let edges = UUIDText.hexDigits(0xFFFF_0A09).littleEndian
        #expect(withUnsafeBytes(of: edges) { String(decoding: $0, as: UTF8.self) } == "090affff")
    }

    @Test func messageIdsUseIt() {
        var out: [UInt8] = []
        MessageID.appendUUID(0x0011_2233_4455_6677, 0x8899_AABB_CCDD_EEFF, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == "00112233-4455-6677-8899-aabbccddeeff")
    }

    static func text(_ first: UInt64, _ second: UInt64, uppercase: Bool) -> String {
        var bytes = [UInt8](repeating: 0, count: UUIDText.count)
        bytes.withUnsafeMutableBufferPointer { UUIDText.write(first, second, to: $0.baseAddress!, uppercase: uppercase) }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func parse(_ text: String) -> (first: UInt64, second: UInt64, uppercase: Bool)? {
        let bytes = Array(text.utf8)
        precondition(bytes.count == UUIDText.count)
        return bytes.withUnsafeBufferPointer { UUIDText.parse($0.baseAddress!) }
    }

    /// What ``UUIDText/parse(_:)`` must accept, byte by byte: dashes at 8, 13, 18 and 23, hex
    /// digits elsewhere, and letters of one case only.
    static func isCanonical(_ bytes: [UInt8]) -> Bool {
        guard bytes.count == 36 else { return false }
        var lower = false
        var upper = false
        for (k, c) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(k) {
                guard c == UInt8(ascii: "-") else { return false }
            } else if (0x61...0x66).contains(c) {
                lower = true
            } else if (0x41...0x46).contains(c) {
                upper = true
            } else if !(0x30...0x39).contains(c) {
                return false
            }
        }
        return !(lower && upper)
    }

    @Test func parseReadsWhatWriteWritesInEitherCase() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let (first, second) = (rng.next() as UInt64, rng.next() as UInt64)
            for uppercase in [false, true] {
                let text = Self.text(first, second, uppercase: uppercase)
                let parsed = Self.parse(text)
                #expect(parsed?.first == first && parsed?.second == second, "\(text)")
                // A text without letters reads as lowercase.
                #expect(parsed?.uppercase == (uppercase && text.contains(where: \.isLetter)), "\(text)")
            }
        }
    }

    /// `read` takes letters of both cases and says which it found; `parse` refuses such a text.
    @Test func readTakesEitherCaseAndSaysWhich() {
        let cases = [
            ("f81d4fae-7dec-11d0-a765-00a0c91e6bf6", true, false), ("F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6", false, true),
            ("F81d4fae-7dec-11d0-a765-00a0c91e6bf6", true, true), ("12345678-9012-3456-7890-123456789012", false, false),
        ]
        for (text, lower, upper) in cases {
            let bytes = Array(text.utf8)
            let read = bytes.withUnsafeBufferPointer { UUIDText.read($0.baseAddress!) }
            #expect(read?.hasLowercase == lower && read?.hasUppercase == upper, "\(text)")
            #expect(read?.first == Self.parse(text.lowercased())?.first && read?.second == Self.parse(text.lowercased())?.second)
            #expect((Self.parse(text) == nil) == (lower && upper), "\(text)")
        }
    }

    @Test func foundationsUppercaseTextReadsAsItsBytes() {
        for _ in 0..<500 {
            let uuid = UUID()
            let bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
            guard let parsed = Self.parse(uuid.uuidString) else {
                Issue.record("\(uuid.uuidString) did not parse")
                continue
            }
            let read = withUnsafeBytes(of: (parsed.first.littleEndian, parsed.second.littleEndian)) { Array($0) }
            #expect(read == bytes)
            #expect(parsed.uppercase)
            #expect(Self.text(parsed.first, parsed.second, uppercase: true) == uuid.uuidString)
        }
    }

    @Test func uppercasedChangesOnlyLetters() {
        let word = UUIDText.hexDigits(0xEFAB_2301).littleEndian
        let upper = UUIDText.uppercased(word)
        #expect(withUnsafeBytes(of: upper) { String(decoding: $0, as: UTF8.self) } == "0123ABEF")
    }

    /// Every one-byte change of a lowercase, an uppercase and a letterless text: it parses
    /// exactly when it is still canonical, and then writes back to exactly the changed bytes.
    @Test(arguments: [
        "00112233-4455-6677-8899-aabbccddeeff", "F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6", "12345678-9012-3456-7890-123456789012",
    ])
    func everyOneByteChangeParsesOnlyWhenCanonical(_ original: String) {
        let bytes = Array(original.utf8)
        for place in 0..<bytes.count {
            for value in 0...255 {
                var changed = bytes
                changed[place] = UInt8(value)
                let parsed = changed.withUnsafeBufferPointer { UUIDText.parse($0.baseAddress!) }
                #expect((parsed != nil) == Self.isCanonical(changed), "byte \(value) at \(place)")
                if let parsed {
                    var written = [UInt8](repeating: 0, count: UUIDText.count)
                    written.withUnsafeMutableBufferPointer {
                        UUIDText.write(parsed.first, parsed.second, to: $0.baseAddress!, uppercase: parsed.uppercase)
                    }
                    #expect(written == changed, "byte \(value) at \(place)")
                }
            }
        }
    }
}
