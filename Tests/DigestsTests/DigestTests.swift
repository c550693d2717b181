import Digests
import Testing

/// The digests against published vectors (FIPS 180-4 examples, RFC 4231), and streaming against
/// one-shot hashing cut at every point.
@Suite struct DigestTests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func sha256MatchesTheStandardsExamples(_ text: String, _ hex: String) {
        #expect(Digest.hex(Digest.sha256(Array(text.utf8))) == hex)
    }

    @Test func sha256OfAMillionAs() {
        let hasher = SHA256Hasher()
        let block = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { hasher.update(block) }
        #expect(Digest.hex(hasher.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test(arguments: [
        ("", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ("abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
    ])
    func sha1MatchesTheStandardsExamples(_ text: String, _ hex: String) {
        #expect(Digest.hex(Array(text.utf8).withUnsafeBytes { Digest.sha1($0) }) == hex)
    }

    /// RFC 4231, test cases 1, 2 and 6 (a key longer than the block).
    @Test func hmacSHA256MatchesRFC4231() {
        #expect(
            Digest.hex(Digest.hmacSHA256(key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8)))
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(
            Digest.hex(Digest.hmacSHA256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(
            Digest.hex(
                Digest.hmacSHA256(
                    key: [UInt8](repeating: 0xaa, count: 131),
                    message: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test func streamingEqualsOneShotWhereverTheBytesAreCut() {
        let bytes = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        let whole = Digest.sha256(bytes)
        for cut in 0...bytes.count {
            let hasher = SHA256Hasher()
            hasher.update(bytes[..<cut])
            hasher.update(bytes[cut...])
            #expect(hasher.finalize() == whole, "cut at \(cut)")
        }
    }

    @Test func hexIsLowerCaseTwoDigitsPerByte() {
        #expect(Digest.hex([0x00, 0x0f, 0xa0, 0xff]) == "000fa0ff")
        #expect(Digest.hex([UInt8]()) == "")
    }
}
