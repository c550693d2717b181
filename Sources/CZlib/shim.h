// zlib (Debian's zlib1g-dev): raw deflate and CRC-32 for the zip input reader (InputShapes).
#include <zlib.h>
