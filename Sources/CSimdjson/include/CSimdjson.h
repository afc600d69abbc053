#ifndef WEARABLE_GATEWAY_CSIMDJSON_H
#define WEARABLE_GATEWAY_CSIMDJSON_H

// Umbrella header of the simdjson shim (Debian libsimdjson-dev): the frame decoders of the
// wire contract's payloads, one C call per frame into caller-provided buffers.
#include "CSimdjsonDecoding.h"

#endif
