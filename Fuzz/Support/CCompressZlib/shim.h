// The part of zlib the GzipCodec stand-in uses, over Debian's zlib (zlib1g-dev):
// inflateInit2 is a macro in zlib.h, which Swift cannot call, hence the function.
#include <zlib.h>

static inline int CCompressZlib_inflateInit2(z_streamp strm, int windowBits) {
    return inflateInit2(strm, windowBits);
}
