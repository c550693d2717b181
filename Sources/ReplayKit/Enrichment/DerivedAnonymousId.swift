import Crypto

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
        var hasher = Insecure.SHA1()
        hasher.update(data: namespace)
        hasher.update(bufferPointer: UnsafeRawBufferPointer(userId))
        var bytes = Array(hasher.finalize().prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50  // version 5
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 9562 variant
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(36)
        for (i, b) in bytes.enumerated() {
            if i == 4 || i == 6 || i == 8 || i == 10 { out.append(UInt8(ascii: "-")) }
            out.append(hex[Int(b >> 4)])
            out.append(hex[Int(b & 0x0F)])
        }
        return out
    }
}
