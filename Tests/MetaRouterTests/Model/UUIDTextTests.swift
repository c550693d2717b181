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
}
