import Crypto
@_spi(PerLine) import MetaRouter

/// The anonymousId mr-replay gives a line that has a `userId` and no `anonymousId`
/// (`enrichment.identity.user_lines: derived`): a name-based UUID, version 5 (RFC 9562, SHA-1),
/// of the userId's UTF-8 bytes under the fixed namespace ``namespaceWords``, in lowercase.
///
/// It depends on the userId alone, so the same user gets the same anonymousId in every run,
/// shard and state directory, and two different userIds never share one. Any UUID library
/// computes the same value, e.g. Python's `uuid.uuid5(uuid.UUID("<namespace>"), user_id)`.
enum DerivedAnonymousId {
    /// The namespace UUID: `9d3b1f52-6c1e-4f8a-a7d2-3e5b8c0f4a61`, as two big-endian words (a
    /// computed literal, so reading it needs no lazily initialized global).
    @inline(__always)
    static var namespaceWords: (UInt64, UInt64) { (0x9D3B_1F52_6C1E_4F8A, 0xA7D2_3E5B_8C0F_4A61) }

    /// Writes the 36 bytes of the derived anonymousId's text of `userId` (its bytes as they
    /// appear in the event, unescaped) at `out`, which must have room for them. Called through a
    /// ``DerivedIdBuffer``.
    ///
    /// The namespace and the userId are hashed as one buffer, in one call: each call into the
    /// hasher costs more than hashing these few bytes does.
    static func write(userId: UnsafeBufferPointer<UInt8>, to out: UnsafeMutablePointer<UInt8>) {
        let digest = withUnsafeTemporaryAllocation(byteCount: 16 + userId.count, alignment: 1) { name in
            // `name` has room for the namespace's 16 bytes and then the userId's bytes; both
            // writes are raw byte copies, and the hash reads exactly the bytes written.
            name.storeBytes(of: namespaceWords.0.bigEndian, toByteOffset: 0, as: UInt64.self)
            name.storeBytes(of: namespaceWords.1.bigEndian, toByteOffset: 8, as: UInt64.self)
            if userId.count > 0 { (name.baseAddress! + 16).copyMemory(from: userId.baseAddress!, byteCount: userId.count) }
            var hasher = Insecure.SHA1()
            hasher.update(bufferPointer: UnsafeRawBufferPointer(name))
            return hasher.finalize()
        }
        digest.withUnsafeBytes { d in
            // A SHA-1 digest has 20 bytes, so the two 8-byte reads stay inside it (unaligned:
            // the digest's bytes have no alignment to rely on).
            var first = UInt64(littleEndian: d.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
            var second = UInt64(littleEndian: d.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            first = first & ~(0xF0 << 48) | (0x50 << 48)  // byte 6: version 5
            second = second & ~0xC0 | 0x80  // byte 8: the RFC 9562 variant
            UUIDText.write(first, second, to: out)
        }
    }
}
