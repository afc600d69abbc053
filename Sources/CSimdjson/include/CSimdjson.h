#ifndef WEARABLE_GATEWAY_CSIMDJSON_H
#define WEARABLE_GATEWAY_CSIMDJSON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Result codes of the simdjson shim. 0 is success; anything else names the failure.
typedef enum wg_json_status {
    WG_JSON_OK = 0,
    WG_JSON_NOT_JSON = 1,        ///< the bytes are not well-formed UTF-8 JSON
    WG_JSON_NOT_OBJECT = 2,      ///< valid JSON whose top level is not an object
    WG_JSON_EMPTY = 3,           ///< no bytes at all
} wg_json_status;

/// Validates that `data[0..<length]` is one well-formed JSON document whose top level is an
/// object. On failure, writes a static, NUL-terminated description to `*message` (never freed).
/// Thread-safe: every thread keeps its own parser and padded buffer.
wg_json_status wg_json_validate_object(const uint8_t *data, size_t length, const char **message);

#ifdef __cplusplus
}
#endif

// Field accessors live in their own header; CSimdjson.h is the module's umbrella header.
#include "CSimdjsonFields.h"
// Frame decoders of the wire contract's payloads.
#include "CSimdjsonDecoding.h"

#endif
