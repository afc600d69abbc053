// xxHash (Debian libxxhash-dev): the inbound journal's record checksums (XXH3-64).
#include <xxhash.h>
