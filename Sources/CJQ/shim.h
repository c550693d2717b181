// Debian's libjq (apt-get install -y libjq-dev). It ships no pkg-config file, so the module map
// links `jq` directly. EventTransforms' `jq:` steps are its only user.
#include <jq.h>
#include <jv.h>
