import CLibSSL
import NIOCore

/// One connection's OpenSSL state: an `SSL` whose network side is two memory BIOs. Ciphertext
/// that arrives is given to ``receive(_:)``; what OpenSSL wants sent is taken with
/// ``takeOutput(allocator:)``; the handshake, reads and writes say what happened as values. It
/// does no I/O of its own, so ``TLSHandler`` is a thin shell around it.
///
/// Not thread-safe: one event loop uses it, as it uses its channel.
final class TLSSession {
    /// The `SSL`, which owns both BIOs.
    private let ssl: OpaquePointer
    /// Ciphertext from the peer, read by OpenSSL.
    private let input: OpaquePointer
    /// Ciphertext for the peer, written by OpenSSL.
    private let output: OpaquePointer

    /// A client session whose server certificate must be for `host`, or a server session when
    /// `context` is one. An address (IPv4 or IPv6, as OpenSSL reads it) is checked against the
    /// certificate's addresses and sent as no server name; a name is sent as SNI and checked
    /// against the certificate's names.
    init(context: TLSContext, host: String?) throws(TLSConnectionError) {
        ERR_clear_error()
        let made = (SSL_new(context.pointer), BIO_new(BIO_s_mem()), BIO_new(BIO_s_mem()))
        guard let ssl = made.0, let input = made.1, let output = made.2 else {
            SSL_free(made.0)  // each free accepts nil
            BIO_free(made.1)
            BIO_free(made.2)
            throw TLSConnectionError(.failed, "cannot make a TLS connection: \(TLSErrorQueue.drain())")
        }
        mr_bio_mem_retry_when_empty(input)
        mr_bio_mem_retry_when_empty(output)
        SSL_set_bio(ssl, input, output)  // the SSL owns both BIOs from here
        self.ssl = ssl
        self.input = input
        self.output = output
        if context.isServer {
            SSL_set_accept_state(ssl)
            return
        }
        SSL_set_connect_state(ssl)
        guard let host else { return }
        // OpenSSL's own parser says whether `host` is an address: TLS may not send one as SNI.
        if X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) == 1 { return }
        ERR_clear_error()
        if mr_ssl_set_server_name(ssl, host) != 1 || SSL_set1_host(ssl, host) != 1 {
            throw TLSConnectionError(.failed, "cannot use \(host) as the server name: \(TLSErrorQueue.drain())")
        }
    }

    deinit { SSL_free(ssl) }

    /// What a step of the handshake, or a read, came to.
    enum Step {
        /// It needs more ciphertext from the peer.
        case wantsInput
        /// The handshake is complete.
        case done
        /// The peer closed the TLS session (`close_notify`).
        case closed
        /// It failed; the connection cannot be used.
        case failed(TLSConnectionError)
    }

    /// Gives OpenSSL ciphertext from the peer.
    func receive(_ bytes: ByteBuffer) {
        // Safe: the pointer is used only inside the closure, over the buffer's readable bytes; a
        // memory BIO copies what it is given.
        bytes.withUnsafeReadableBytes { raw in
            guard let base = raw.baseAddress, raw.count > 0 else { return }
            _ = BIO_write(input, base, Int32(raw.count))
        }
    }

    /// Advances the handshake with the ciphertext received so far.
    func handshake() -> Step {
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        return result == 1 ? .done : step(after: result)
    }

    /// Decrypts what has arrived into `buffer`; returns `nil` when it read some plaintext (call it
    /// again), or what stopped it.
    func read(into buffer: inout ByteBuffer) -> Step? {
        ERR_clear_error()
        buffer.reserveCapacity(minimumWritableBytes: 16_384)
        // Safe: OpenSSL writes at most `raw.count` bytes into the buffer's writable space, inside
        // the closure, and the closure returns how many it wrote.
        var result: Int32 = 0
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 16_384) { raw in
            result = SSL_read(ssl, raw.baseAddress, Int32(min(raw.count, Int(Int32.max))))
            return result > 0 ? Int(result) : 0
        }
        return result > 0 ? nil : step(after: result)
    }

    /// Encrypts all of `plaintext` (a memory BIO takes any amount).
    func write(_ plaintext: ByteBuffer) -> TLSConnectionError? {
        var failure: TLSConnectionError?
        // Safe: the pointer is used only inside the closure, over the buffer's readable bytes.
        plaintext.withUnsafeReadableBytes { raw in
            var offset = 0
            while offset < raw.count, failure == nil {
                ERR_clear_error()
                let n = SSL_write(ssl, raw.baseAddress! + offset, Int32(min(raw.count - offset, 1 << 30)))
                if n > 0 {
                    offset += Int(n)
                } else if case .failed(let error) = step(after: n) {
                    failure = error
                } else {
                    failure = TLSConnectionError(.failed, "the TLS connection cannot take more bytes")
                }
            }
        }
        return failure
    }

    /// Queues this side's `close_notify`.
    func shutdown() {
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
    }

    /// The ciphertext OpenSSL has produced for the peer since the last call, if any.
    func takeOutput(allocator: ByteBufferAllocator) -> ByteBuffer? {
        let pending = Int(BIO_ctrl_pending(output))
        guard pending > 0 else { return nil }
        var buffer = allocator.buffer(capacity: pending)
        // Safe: BIO_read writes at most `raw.count` bytes into the writable space, inside the closure.
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: pending) { raw in
            Int(max(0, BIO_read(output, raw.baseAddress, Int32(pending))))
        }
        return buffer
    }

    /// What a handshake or read result that is not success means.
    private func step(after result: Int32) -> Step {
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return .wantsInput
        case SSL_ERROR_ZERO_RETURN: return .closed
        default: return .failed(TLSConnectionError.last(of: ssl))
        }
    }
}
