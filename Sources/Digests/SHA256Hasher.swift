import CLibCrypto

/// SHA-256 over bytes given in pieces (a part file as it is written, a file read in blocks).
///
/// One hasher per digest and per thread: ``finalize()`` ends it.
package final class SHA256Hasher {
    private let context: OpaquePointer
    private var finished = false

    /// A hasher with nothing hashed yet.
    package init() {
        guard let context = EVP_MD_CTX_new() else { fatalError("libcrypto could not allocate a digest context") }
        self.context = context
        precondition(EVP_DigestInit_ex(context, Algorithms.shared.sha256, nil) == 1, "libcrypto's SHA-256 failed to start")
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Hashes `bytes` after what came before.
    package func update(_ bytes: UnsafeRawBufferPointer) {
        precondition(!finished, "SHA256Hasher.update after finalize")
        guard bytes.count > 0 else { return }
        // Safe: EVP_DigestUpdate reads `bytes.count` bytes at `bytes.baseAddress`, valid for the
        // call, and keeps no pointer to them.
        precondition(EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) == 1, "libcrypto's SHA-256 failed")
    }

    /// Hashes `bytes` after what came before.
    package func update(_ bytes: some Collection<UInt8>) {
        if let done: Void = bytes.withContiguousStorageIfAvailable({ update(UnsafeRawBufferPointer($0)) }) { return done }
        Array(bytes).withUnsafeBytes { update($0) }
    }

    /// The digest of everything hashed (32 bytes). The hasher takes no more bytes after this.
    package func finalize() -> [UInt8] {
        precondition(!finished, "SHA256Hasher.finalize called twice")
        finished = true
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        // Safe: EVP_DigestFinal_ex writes at most EVP_MAX_MD_SIZE bytes into `out`, which has
        // that many, and their number into `length`.
        let ok = out.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
        precondition(ok == 1, "libcrypto's SHA-256 failed to finish")
        out.removeSubrange(Int(length)...)
        return out
    }
}
