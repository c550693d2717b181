import CSHA1
import Digests
@_spi(PerLine) import MetaRouterDelivery

/// The anonymousId mr-replay gives a line that has a `userId` and no `anonymousId`
/// (`enrichment.identity.user_lines: derived`): a name-based UUID, version 5 (RFC 9562, SHA-1),
/// of the userId's UTF-8 bytes under the fixed namespace ``namespaceWords``, in lowercase.
///
/// It depends on the userId alone, so the same user gets the same anonymousId in every run,
/// shard and state directory, and two different userIds never share one. Any UUID library
/// computes the same value, e.g. Python's `uuid.uuid5(uuid.UUID("<namespace>"), user_id)`.
package enum DerivedAnonymousId {
    /// The namespace UUID: `9d3b1f52-6c1e-4f8a-a7d2-3e5b8c0f4a61`, as two big-endian words (a
    /// computed literal, so reading it needs no lazily initialized global).
    @inline(__always)
    static var namespaceWords: (UInt64, UInt64) { (0x9D3B_1F52_6C1E_4F8A, 0xA7D2_3E5B_8C0F_4A61) }

    /// Writes the 36 bytes of the derived anonymousId's text of `userId` (its bytes as they
    /// appear in the event, unescaped) at `out`, which must have room for them. Called through a
    /// ``DerivedIdBuffer``.
    ///
    /// The namespace and the userId are hashed as one buffer, in one call.
    static func write(userId: UnsafeBufferPointer<UInt8>, to out: UnsafeMutablePointer<UInt8>) {
        withUnsafeTemporaryAllocation(byteCount: 16 + userId.count, alignment: 1) { name in
            // `name` has room for the namespace's 16 bytes and then the userId's bytes; both
            // writes are raw byte copies, and the hash reads exactly the bytes written.
            name.storeBytes(of: namespaceWords.0.bigEndian, toByteOffset: 0, as: UInt64.self)
            name.storeBytes(of: namespaceWords.1.bigEndian, toByteOffset: 8, as: UInt64.self)
            if userId.count > 0 { (name.baseAddress! + 16).copyMemory(from: userId.baseAddress!, byteCount: userId.count) }
            sha1(UnsafeRawBufferPointer(name)) { digest in
                // A SHA-1 digest has 20 bytes, so the two 8-byte reads stay inside it (unaligned:
                // the digest's bytes have no alignment to rely on).
                var first = UInt64(littleEndian: digest.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
                var second = UInt64(littleEndian: digest.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
                first = first & ~(0xF0 << 48) | (0x50 << 48)  // byte 6: version 5
                second = second & ~0xC0 | 0x80  // byte 8: the RFC 9562 variant
                UUIDText.write(first, second, to: out)
            }
        }
    }

    /// Whether ``sha1(_:usingSHAExtensions:_:)`` can hash with the CPU's SHA instructions.
    package static var hasSHAExtensions: Bool {
        #if arch(x86_64)
            mr_sha1_has_sha_extensions() != 0
        #else
            false
        #endif
    }

    /// Calls `body` with the 20 bytes of the SHA-1 digest of `bytes`: computed with the CPU's SHA
    /// instructions when `usingSHAExtensions` and the CPU has them (``hasSHAExtensions``), else
    /// by libcrypto (``Digest/sha1(_:)``). Both give the same digest; the first costs no allocation.
    package static func sha1<R>(
        _ bytes: UnsafeRawBufferPointer, usingSHAExtensions: Bool = true, _ body: (UnsafeRawBufferPointer) -> R
    ) -> R {
        #if arch(x86_64)
            if usingSHAExtensions, hasSHAExtensions {
                return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digest in
                    bytes.withMemoryRebound(to: UInt8.self) { input in
                        // The C function reads input.count bytes at input.baseAddress (none, and then
                        // a nil address is allowed, when the count is 0) and writes exactly the 20
                        // bytes of `digest`; the CPU has the instructions it uses (checked above).
                        mr_sha1_with_sha_extensions(input.baseAddress, input.count, digest.baseAddress!)
                    }
                    return body(UnsafeRawBufferPointer(digest))
                }
            }
        #endif
        return Digest.sha1(bytes).withUnsafeBytes(body)
    }
}
