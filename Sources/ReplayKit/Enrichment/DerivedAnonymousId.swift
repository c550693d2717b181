import Crypto
@_spi(PerLine) import MetaRouter

/// The anonymousId mr-replay gives a line that has a `userId` and no `anonymousId`
/// (`enrichment.identity.user_lines: derived`): a name-based UUID, version 5 (RFC 9562, SHA-1),
/// of the userId's UTF-8 bytes under the fixed namespace ``namespace``, in lowercase.
///
/// It depends on the userId alone, so the same user gets the same anonymousId in every run,
/// shard and state directory, and two different userIds never share one. Any UUID library
/// computes the same value, e.g. Python's `uuid.uuid5(uuid.UUID("<namespace>"), user_id)`.
enum DerivedAnonymousId {
    /// The namespace UUID: `9d3b1f52-6c1e-4f8a-a7d2-3e5b8c0f4a61`.
    static let namespace: [UInt8] = [
        0x9D, 0x3B, 0x1F, 0x52, 0x6C, 0x1E, 0x4F, 0x8A, 0xA7, 0xD2, 0x3E, 0x5B, 0x8C, 0x0F, 0x4A, 0x61,
    ]

    /// The derived anonymousId of `userId` (its bytes as they appear in the event, unescaped),
    /// as the 36 bytes of its lowercase text.
    static func make(userId: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        withDerived(userId: userId) { Array($0) }
    }

    /// The FNV-1a hash of the derived anonymousId of `userId`: its lane and shard key, made
    /// without allocating.
    static func laneKey(userId: UnsafeBufferPointer<UInt8>) -> UInt64 {
        withDerived(userId: userId) { FNV1a.hash($0) }
    }

    /// Calls `body` with the 36 bytes of the derived anonymousId's text, in temporary storage.
    static func withDerived<R>(userId: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        var hasher = Insecure.SHA1()
        hasher.update(data: namespace)
        hasher.update(bufferPointer: UnsafeRawBufferPointer(userId))
        let digest = hasher.finalize()
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 36) { out in
            digest.withUnsafeBytes { d in
                // A SHA-1 digest has 20 bytes; the UUID takes the first 16, and `out` has room
                // for their 32 hex digits and 4 dashes (36).
                var k = 0
                for i in 0..<16 {
                    var b = d[i]
                    if i == 6 { b = (b & 0x0F) | 0x50 }  // version 5
                    if i == 8 { b = (b & 0x3F) | 0x80 }  // RFC 9562 variant
                    if i == 4 || i == 6 || i == 8 || i == 10 {
                        out[k] = UInt8(ascii: "-")
                        k += 1
                    }
                    out[k] = hexDigit(b >> 4)
                    out[k + 1] = hexDigit(b & 0x0F)
                    k += 2
                }
            }
            return body(UnsafeBufferPointer(out))
        }
    }

    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
