// The module is the inline function in include/CPrefetch.h; SwiftPM needs one source file.
#include "CPrefetch.h"
