import CLibCrypto

/// One-shot digests and HMAC from the system's libcrypto (OpenSSL), and their hex text.
package enum Digest {
    /// The SHA-256 of `bytes` (32 bytes).
    package static func sha256(_ bytes: some Collection<UInt8>) -> [UInt8] {
        let hasher = SHA256Hasher()
        hasher.update(bytes)
        return hasher.finalize()
    }

    /// The SHA-1 of `bytes` (20 bytes). SHA-1 here names things (UUIDv5 ids); it is not security.
    package static func sha1(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        // Safe: EVP_Digest reads `bytes.count` bytes at `bytes.baseAddress` (a nil address only
        // with a count of 0, which it accepts) and writes at most EVP_MAX_MD_SIZE bytes into
        // `out`, which has that many, and their number into `length`; all live for the call.
        let ok = out.withUnsafeMutableBufferPointer { digest in
            EVP_Digest(bytes.baseAddress, bytes.count, digest.baseAddress, &length, Algorithms.shared.sha1, nil)
        }
        precondition(ok == 1, "libcrypto's SHA-1 failed")
        out.removeSubrange(Int(length)...)
        return out
    }

    /// HMAC-SHA256 of `message` under `key` (32 bytes).
    package static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        // Safe: HMAC reads `key.count` key bytes and `message.count` message bytes from the two
        // arrays' storage, writes at most EVP_MAX_MD_SIZE bytes into `out` (that size) and their
        // number into `length`; every buffer lives for the call.
        let result = key.withUnsafeBytes { k in
            message.withUnsafeBytes { m in
                out.withUnsafeMutableBufferPointer { o in
                    HMAC(
                        Algorithms.shared.sha256, k.baseAddress, Int32(k.count), m.baseAddress?.assumingMemoryBound(to: UInt8.self),
                        m.count, o.baseAddress, &length)
                }
            }
        }
        precondition(result != nil, "libcrypto's HMAC-SHA256 failed")
        out.removeSubrange(Int(length)...)
        return out
    }

    /// `bytes` as lower-case hex.
    package static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// The digest algorithms, fetched from libcrypto's default provider once for the process.
struct Algorithms: @unchecked Sendable {
    // @unchecked: the two pointers are fetched EVP_MD objects, which OpenSSL documents as
    // immutable and safe to share between threads once fetched; they are never freed.
    let sha256: OpaquePointer
    let sha1: OpaquePointer

    static let shared: Algorithms = {
        guard let sha256 = EVP_MD_fetch(nil, "SHA256", nil), let sha1 = EVP_MD_fetch(nil, "SHA1", nil) else {
            fatalError("libcrypto has no SHA-256 or SHA-1 (its default provider is not loaded)")
        }
        return Algorithms(sha256: sha256, sha1: sha1)
    }()
}
