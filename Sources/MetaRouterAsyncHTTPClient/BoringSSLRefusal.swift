import NIOSSL

/// Tells the TLS failures that retrying cannot fix (a certificate nobody trusts, a client
/// certificate the server refuses) from passing network trouble, from swift-nio-ssl's errors.
package enum BoringSSLRefusal {
    /// BoringSSL's reasons for a server certificate this client does not accept.
    private static let untrusted = ["CERTIFICATE_VERIFY_FAILED"]
    /// The alerts a server sends when it refuses the client's certificate or its absence.
    private static let refusedByServer = [
        "CERTIFICATE_REQUIRED", "ALERT_HANDSHAKE_FAILURE", "ALERT_BAD_CERTIFICATE", "ALERT_UNKNOWN_CA",
        "ALERT_CERTIFICATE_UNKNOWN", "ALERT_ACCESS_DENIED", "ALERT_CERTIFICATE_EXPIRED", "ALERT_CERTIFICATE_REVOKED",
        "ALERT_UNSUPPORTED_CERTIFICATE", "PEER_DID_NOT_RETURN_A_CERTIFICATE",
    ]

    /// What went wrong, for a person, when `error` is such a failure; `nil` for anything else.
    package static func describe(_ error: any Error) -> String? {
        if let extra = error as? NIOSSLExtraError, extra == .failedToValidateHostname {
            return "the server's certificate is not valid for this host name (\(extra))"
        }
        let detail: String
        if case .handshakeFailed(let boring)? = error as? NIOSSLError {
            detail = "\(boring)"  // during the handshake
        } else if let boring = error as? BoringSSLError, case .sslError(let stack) = boring {
            detail = "\(stack)"  // after it (TLS 1.3: a refused client certificate shows on the first read)
        } else {
            return nil
        }
        if let reason = reasonName(in: detail, among: untrusted) {
            return "the server's certificate is not trusted: it does not chain to a trusted CA, or it has expired (\(reason))"
        }
        if let reason = reasonName(in: detail, among: refusedByServer) {
            return "the server refused the TLS handshake: it did not accept this client's certificate, or wants one (\(reason))"
        }
        return nil
    }

    /// BoringSSL's reason name (`TLSV1_ALERT_CERTIFICATE_REQUIRED`) in an error stack's text
    /// (`error:1000045c:SSL routines:OPENSSL_internal:TLSV1_ALERT_CERTIFICATE_REQUIRED at ...`)
    /// that contains one of `keywords`.
    package static func reasonName(in detail: String, among keywords: [String]) -> String? {
        let words = detail.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") })
        return words.first { word in keywords.contains { word.contains($0) } }.map(String.init)
    }
}
