import CLibSSL

/// A TLS connection failed: during the handshake, or later, when a record cannot be read or the
/// peer sends an alert. ``kind`` separates the failures that retrying cannot fix from the rest.
package struct TLSConnectionError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure it is.
    package enum Kind: Sendable, Equatable {
        /// The peer's certificate does not chain to a trusted CA, has expired, or is malformed.
        case untrusted
        /// The server's certificate is not for the host name (or address) connected to.
        case wrongHost
        /// The peer refused this side's certificate, or its absence (an alert such as
        /// `certificate_required`, `bad_certificate` or `handshake_failure`).
        case refused
        /// Anything else: a malformed record, a closed connection, an unexpected message.
        case failed
    }

    /// What kind of failure it is.
    package let kind: Kind
    /// OpenSSL's account of it (the verification result, or the error queue).
    package let detail: String

    package init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    package var description: String { detail }

    /// The alerts (RFC 8446 §6.2) with which a peer refuses a certificate, or the lack of one.
    private static let refusalAlerts: Set<Int32> = [40, 42, 43, 44, 45, 46, 48, 49, 116]

    /// The failure of the last OpenSSL call on `ssl`, from the thread's error queue (which this
    /// empties) and the verification result.
    static func last(of ssl: OpaquePointer) -> TLSConnectionError {
        let first = ERR_peek_error()
        let text = TLSErrorQueue.drain()
        let reason = mr_err_reason(first)
        if mr_err_lib(first) == ERR_LIB_SSL, reason == SSL_R_CERTIFICATE_VERIFY_FAILED {
            let result = Int32(SSL_get_verify_result(ssl))
            let why = String(cString: X509_verify_cert_error_string(Int(result)))
            if result == X509_V_ERR_HOSTNAME_MISMATCH || result == X509_V_ERR_IP_ADDRESS_MISMATCH {
                return TLSConnectionError(.wrongHost, "\(why) (\(text))")
            }
            return TLSConnectionError(.untrusted, "\(why) (\(text))")
        }
        if mr_err_lib(first) == ERR_LIB_SSL, reason >= SSL_AD_REASON_OFFSET,
            refusalAlerts.contains(reason - SSL_AD_REASON_OFFSET)
        {
            return TLSConnectionError(.refused, text)
        }
        return TLSConnectionError(.failed, text.isEmpty ? "the TLS connection failed" : text)
    }
}

/// The calling thread's OpenSSL error queue.
enum TLSErrorQueue {
    /// Every error in the queue, as OpenSSL words them, joined with "; " (the queue is emptied).
    static func drain() -> String {
        var parts: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var text = [CChar](repeating: 0, count: 256)
            // Safe: OpenSSL writes at most `text.count` bytes, NUL included, into the array.
            ERR_error_string_n(code, &text, text.count)
            parts.append(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return parts.joined(separator: "; ")
    }
}
