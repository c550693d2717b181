import Foundation
import ReplayKit
import TestSupport
import Testing

/// The derived anonymousId is Python's uuid5 of the userId, written straight into its buffer.
struct DerivedAnonymousIdTests {
    /// The text `buffer` gives for `userId`, as a String.
    static func derived(_ buffer: DerivedIdBuffer, _ userId: String) -> String {
        var id = userId
        return id.withUTF8 { String(decoding: buffer.derived(userId: $0), as: UTF8.self) }
    }

    /// Python's `uuid.uuid5(uuid.UUID("9d3b1f52-6c1e-4f8a-a7d2-3e5b8c0f4a61"), userId)`, for
    /// userIds of 1 byte, 6, 83, 84, non-ASCII, and 300 bytes (the hashed name spans 1 to 6
    /// SHA-1 blocks).
    static let python: [(String, String)] = [
        ("7", "1b90162f-f97b-5d59-986c-02ef027300a2"),
        ("user-1", "44a97262-d3be-5297-8a96-f25cf7c464e5"),
        (String(repeating: "a", count: 83), "d5b933d9-f973-53e3-804f-fa1ab575d011"),
        (String(repeating: "b", count: 84), "bad1308a-7d13-54a1-b3e8-2d1faff358cf"),
        ("Zoë-用户-42", "2f5637a6-0854-5c38-8d09-e8f1d509f2de"),
        (String(repeating: "c", count: 300), "eae5fe68-1681-59f2-a999-0aa55773b3e7"),
    ]

    /// The same for `u-0` ... `u-39`: 1,280 hex digits, every nibble value at every position of
    /// the text many times over.
    static let pythonSeries: [String] = [
        "564ad88d-aee9-5759-b5a8-e932eb31c7d8",
        "7aaab18d-5be9-5786-b89d-11fa4e6e6125",
        "9b425377-d781-509d-b291-87772bab4242",
        "95212981-1015-54de-ab02-7319f7eb4923",
        "19f5b199-8710-5da3-b904-842780694624",
        "6e67ee6d-6d4d-5052-8738-e68850354b49",
        "0b4c9813-7742-5f1d-b000-c8877f2c80f9",
        "821ab7d6-1de3-5ac3-a14f-c5a49ea81026",
        "592f9620-20cd-5f7f-82b4-8b29c27f5d37",
        "2a8f05bc-f0d3-50a4-a678-e452c88adcbd",
        "a3e8be29-c60b-5e37-9a85-026eb93da9f7",
        "7b014c01-7a38-5440-8011-c5061e875d26",
        "08ad9b0e-91d4-5bec-845d-ad2afac3007b",
        "e587ecbb-fa02-5936-bef7-0c2fece04cf8",
        "61191cd1-2f10-55ab-a842-98a7914d2dd2",
        "dfc2e1b8-066a-538d-8724-683c2e8483ad",
        "5b3c47b9-677c-5027-abf7-db360a2aba89",
        "f484819b-369d-538f-9283-0d666a6ca814",
        "692d73eb-85e5-5703-b0e3-ddb78c6d84f2",
        "5c57fa70-fe54-538d-a1dc-fbe947da0f6e",
        "cfcdcfb5-d079-56c5-b7b1-6c2ca42b73bd",
        "a1d19b3e-2871-57a3-a116-62c0344ae956",
        "cfffa0aa-b42d-5440-9bc9-9948f075712a",
        "d074fb15-924e-56d5-a1ee-fae4bfb08346",
        "e8dfcdce-b6b7-5575-a158-27f1826260ec",
        "e107641c-8706-5c32-a6e9-b81adb59bf3c",
        "16e32ee5-6760-5b36-8dca-489a53240baf",
        "9121b121-68f4-5c41-812b-14a7580a2f7c",
        "45e893ca-0f89-5190-a0ee-526d4b19e2c9",
        "aac858b4-6e7f-5a98-a2c5-b18738d13df9",
        "9fa1dde0-53e0-5ee5-8948-5300f93a208f",
        "44dc54f0-ea3f-5881-b8f9-34475e0bc7f9",
        "2c1f972c-8254-5e33-8f21-e673fba201c5",
        "5e206561-373a-57e0-9f55-13f285a35c27",
        "241f5d76-42b3-5054-893d-f4f3efcf2d48",
        "218cda3c-5550-54b8-8790-afcf0324bd13",
        "1dab1a5a-a804-5878-a1f5-9684d8eed8b8",
        "6ddb5305-0b7c-5dda-a954-d4cc48f47b7b",
        "036ed67e-76b0-5d31-8d90-96b16ecdd28f",
        "409d2b28-ba33-5963-8461-ae0d0d8f02f1",
    ]

    @Test func isTheUUIDv5OfTheUserIdHoweverLong() {
        let buffer = DerivedIdBuffer()
        for (userId, expected) in Self.python {
            #expect(Self.derived(buffer, userId) == expected, "\(userId.utf8.count) bytes")
        }
    }

    @Test func writesTheSameTextAsPythonForASeriesOfUserIds() {
        let buffer = DerivedIdBuffer()
        for (i, expected) in Self.pythonSeries.enumerated() {
            #expect(Self.derived(buffer, "u-\(i)") == expected)
        }
    }

    /// One buffer, reused: each derivation overwrites the last in the same memory.
    @Test func theBufferIsReusedLineAfterLine() {
        let buffer = DerivedIdBuffer()
        var first = "user-1"
        var second = "7"
        let a = first.withUTF8 { buffer.derived(userId: $0).baseAddress }
        let b = second.withUTF8 { buffer.derived(userId: $0).baseAddress }
        #expect(a == b)
        #expect(Self.derived(buffer, "user-1") == "44a97262-d3be-5297-8a96-f25cf7c464e5")
    }

    /// The SHA-1 the derivation uses: with the CPU's SHA instructions, it gives swift-crypto's
    /// digest for every length from 0 to 300 bytes (up to five blocks, every position of the
    /// padding) and for random lengths up to 5,000, with random bytes; FIPS 180-4's examples.
    @Test(.enabled(if: DerivedAnonymousId.hasSHAExtensions, "this CPU has no SHA instructions"))
    func theSHAInstructionsGiveSwiftCryptosDigest() {
        func digest(_ bytes: [UInt8], _ accelerated: Bool) -> [UInt8] {
            bytes.withUnsafeBytes { DerivedAnonymousId.sha1($0, usingSHAExtensions: accelerated) { Array($0) } }
        }
        var random = SeededRandom(seed: 0x5AA1)
        let lengths = Array(0...300) + (0..<50).map { _ in Int.random(in: 301...5_000, using: &random) }
        for n in lengths {
            let bytes = (0..<n).map { _ in UInt8.random(in: 0...255, using: &random) }
            let accelerated = digest(bytes, true)
            #expect(accelerated.count == 20)
            #expect(accelerated == digest(bytes, false), "\(n) bytes")
        }
        let hex = { (bytes: [UInt8]) in bytes.map { String(format: "%02x", $0) }.joined() }
        #expect(hex(digest(Array("abc".utf8), true)) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(hex(digest([], true)) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        let twoBlocks = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        #expect(hex(digest(twoBlocks, true)) == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
    }
}
