// Debian's OpenSSL libcrypto (apt-get install -y libssl-dev): the digests and HMAC the package
// needs (SHA-256 for checkpoints, partitions and S3 signing; SHA-1 for derived ids on CPUs
// without SHA instructions), through the EVP interface, which OpenSSL 3 does not deprecate.
#include <openssl/evp.h>
#include <openssl/hmac.h>
