// Debian's OpenSSL libssl (apt-get install -y libssl-dev): TLS for the package's HTTP clients
// and the collector, driven through memory BIOs by SystemTLS's channel handler.
//
// Swift cannot call function-like macros, so the few that the handler needs are wrapped here as
// static inline functions with the same meaning.
#ifndef MR_CLIBSSL_SHIM_H
#define MR_CLIBSSL_SHIM_H

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

/// SSL_set_tlsext_host_name: the server name sent in the ClientHello (SNI).
static inline int mr_ssl_set_server_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

/// SSL_CTX_set_min_proto_version.
static inline int mr_ssl_ctx_set_min_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}

/// BIO_set_mem_eof_return(bio, -1): an empty memory BIO asks to retry rather than reporting the
/// end of the stream, so SSL_read and SSL_do_handshake answer SSL_ERROR_WANT_READ.
static inline void mr_bio_mem_retry_when_empty(BIO *bio) {
    (void)BIO_set_mem_eof_return(bio, -1);
}

/// ERR_GET_LIB and ERR_GET_REASON of a packed error code.
static inline int mr_err_lib(unsigned long code) { return ERR_GET_LIB(code); }
static inline int mr_err_reason(unsigned long code) { return ERR_GET_REASON(code); }

/// A password callback that supplies none, so an encrypted private key fails to load instead of
/// prompting on the terminal.
static inline int mr_no_password(char *buf, int size, int rwflag, void *userdata) {
    (void)buf; (void)size; (void)rwflag; (void)userdata;
    return 0;
}

/// Installs mr_no_password on a context.
static inline void mr_ssl_ctx_refuse_passwords(SSL_CTX *ctx) {
    SSL_CTX_set_default_passwd_cb(ctx, mr_no_password);
}

#endif
