// The module is the inline functions in include/CSHA1.h; SwiftPM needs one source file.
#include "CSHA1.h"
