import CLibSSL

/// The settings every TLS connection of one client or server shares, as one OpenSSL `SSL_CTX`:
/// which certificate authorities a peer's certificate must chain to, the certificate and key this
/// side presents, and the lowest protocol version (TLS 1.2). Every file is read when the context
/// is made, so a bad file fails here, naming its role, before any connection opens.
///
/// Sharing: `@unchecked Sendable` because the `SSL_CTX` is configured completely in the
/// initializers and never changed afterwards; OpenSSL 3 reference-counts it and makes creating
/// connections from one context on many threads safe (`SSL_new` takes the context's lock).
package final class TLSContext: @unchecked Sendable {
    /// The `SSL_CTX`, owned by this object.
    let pointer: OpaquePointer
    /// Whether connections made from it accept (a server) rather than connect.
    package let isServer: Bool

    private init(server: Bool) throws(TLSSetupError) {
        ERR_clear_error()
        guard let made = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method()) else {
            throw TLSSetupError(.context, TLSErrorQueue.drain())
        }
        pointer = made
        isServer = server
        _ = mr_ssl_ctx_set_min_version(made, TLS1_2_VERSION)
        // An encrypted key fails to load instead of prompting on the terminal.
        mr_ssl_ctx_refuse_passwords(made)
    }

    deinit { SSL_CTX_free(pointer) }

    /// A client context. It trusts the system's roots when `systemRoots` (OpenSSL's default
    /// locations, which `SSL_CERT_FILE` and `SSL_CERT_DIR` override), plus the CA certificates of
    /// PEM file `caFile` when given; it presents the certificate chain of PEM file
    /// `certificateFile` with the key of `privateKeyFile` when asked for one (mutual TLS).
    /// - Throws: ``TLSSetupError`` naming the role of the file that cannot be used.
    package static func client(
        systemRoots: Bool, caFile: String?, certificateFile: String? = nil, privateKeyFile: String? = nil
    ) throws(TLSSetupError) -> TLSContext {
        let context = try TLSContext(server: false)
        if systemRoots, SSL_CTX_set_default_verify_paths(context.pointer) != 1 {
            throw TLSSetupError(.caFile, TLSErrorQueue.drain())
        }
        if let caFile { try context.trust(caFile) }
        if let certificateFile, let privateKeyFile {
            try context.present(certificateFile: certificateFile, privateKeyFile: privateKeyFile)
        }
        SSL_CTX_set_verify(context.pointer, SSL_VERIFY_PEER, nil)
        return context
    }

    /// A server context presenting the certificate chain of PEM file `certificateFile` with the
    /// key of `privateKeyFile`. With `clientCAFile`, every client must present a certificate that
    /// chains to one of its CA certificates, or the handshake fails.
    /// - Throws: ``TLSSetupError`` naming the role of the file that cannot be used.
    package static func server(
        certificateFile: String, privateKeyFile: String, clientCAFile: String? = nil
    ) throws(TLSSetupError) -> TLSContext {
        let context = try TLSContext(server: true)
        try context.present(certificateFile: certificateFile, privateKeyFile: privateKeyFile)
        if let clientCAFile {
            try context.trust(clientCAFile)
            ERR_clear_error()
            guard let names = SSL_load_client_CA_file(clientCAFile) else {
                throw TLSSetupError(.caFile, TLSErrorQueue.drain())
            }
            SSL_CTX_set_client_CA_list(context.pointer, names)  // takes ownership of `names`
            SSL_CTX_set_verify(context.pointer, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nil)
        } else {
            SSL_CTX_set_verify(context.pointer, SSL_VERIFY_NONE, nil)
        }
        return context
    }

    /// Adds the CA certificates of PEM file `path` to the trusted ones.
    private func trust(_ path: String) throws(TLSSetupError) {
        ERR_clear_error()
        guard SSL_CTX_load_verify_locations(pointer, path, nil) == 1 else {
            throw TLSSetupError(.caFile, TLSErrorQueue.drain())
        }
    }

    /// Presents the chain of `certificateFile` with the key of `privateKeyFile`. The key is loaded
    /// first, so a file that is no key and a key that belongs to another certificate fail apart.
    private func present(certificateFile: String, privateKeyFile: String) throws(TLSSetupError) {
        ERR_clear_error()
        guard SSL_CTX_use_PrivateKey_file(pointer, privateKeyFile, SSL_FILETYPE_PEM) == 1 else {
            throw TLSSetupError(.privateKey, TLSErrorQueue.drain())
        }
        guard SSL_CTX_use_certificate_chain_file(pointer, certificateFile) == 1 else {
            throw TLSSetupError(.certificate, TLSErrorQueue.drain())
        }
        guard SSL_CTX_check_private_key(pointer) == 1 else {
            throw TLSSetupError(.keyMismatch, TLSErrorQueue.drain())
        }
    }
}

/// Why a ``TLSContext`` cannot be made: which file (by role) and OpenSSL's reason.
package struct TLSSetupError: Error, Sendable, CustomStringConvertible {
    /// The role of the file that cannot be used.
    package enum Role: Sendable, Equatable {
        /// OpenSSL could not make a context at all.
        case context
        /// A CA certificate file (or the system's roots).
        case caFile
        /// The certificate chain this side presents.
        case certificate
        /// The private key this side presents.
        case privateKey
        /// The private key does not belong to the certificate.
        case keyMismatch
    }

    /// Which file.
    package let role: Role
    /// OpenSSL's reason, as its error queue said it.
    package let reason: String

    init(_ role: Role, _ reason: String) {
        self.role = role
        self.reason = reason
    }

    /// The reason.
    package var description: String { reason }
}
