import SystemTLS

/// Tells the TLS failures that retrying cannot fix (a certificate nobody trusts or that names
/// another host, a client certificate the server refuses) from passing network trouble.
enum TLSRefusal {
    /// What went wrong, for a person, when `error` is such a failure; `nil` for anything else.
    static func describe(_ error: any Error) -> String? {
        guard let tls = error as? TLSConnectionError else { return nil }
        switch tls.kind {
        case .untrusted:
            return "the server's certificate is not trusted: it does not chain to a trusted CA, or it has expired (\(tls.detail))"
        case .wrongHost:
            return "the server's certificate is not valid for this host name (\(tls.detail))"
        case .refused:
            return "the server refused the TLS handshake: it did not accept this client's certificate, or wants one (\(tls.detail))"
        case .failed:
            return nil
        }
    }
}
