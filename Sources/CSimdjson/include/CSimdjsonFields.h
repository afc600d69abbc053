#ifndef WEARABLE_GATEWAY_CSIMDJSON_FIELDS_H
#define WEARABLE_GATEWAY_CSIMDJSON_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Result codes of the top-level field accessors. 0 is success.
typedef enum wg_json_field_status {
    WG_JSON_FIELD_OK = 0,
    WG_JSON_FIELD_MISSING = 1,      ///< the object has no member with that key
    WG_JSON_FIELD_WRONG_TYPE = 2,   ///< the member exists but has another JSON type
    WG_JSON_FIELD_NOT_OBJECT = 3,   ///< the document is not well-formed JSON or not an object
    WG_JSON_FIELD_TRUNCATED = 4,    ///< a string member did not fit the buffer (the prefix was copied)
} wg_json_field_status;

/// Looks up the top-level member `key` (NUL-terminated) of the JSON object in `data[0..<length]`
/// and, when it is a string, copies its unescaped UTF-8 bytes (not NUL-terminated) into
/// `buffer[0..<capacity]` and stores their full length in `*out_length`.
/// With duplicate keys the first member wins. Thread-safe (a parser per thread).
wg_json_field_status wg_json_get_string(const uint8_t *data, size_t length, const char *key,
                                        uint8_t *buffer, size_t capacity, size_t *out_length);

/// Looks up the top-level member `key` (NUL-terminated) of the JSON object in `data[0..<length]`
/// and, when it is a number (integer or floating point), stores it as a double in `*out_value`.
/// With duplicate keys the first member wins. Thread-safe (a parser per thread).
wg_json_field_status wg_json_get_double(const uint8_t *data, size_t length, const char *key,
                                        double *out_value);

#ifdef __cplusplus
}
#endif

#endif
