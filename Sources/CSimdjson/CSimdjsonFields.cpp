#include "CSimdjsonFields.h"

#include <simdjson.h>
#include <cstring>
#include <string_view>
#include <vector>

namespace {

/// Own per-thread parser and padded buffer (CSimdjson.cpp keeps its state private):
/// simdjson parsers are not thread-safe, and reuse keeps later calls allocation-free.
struct FieldThreadState {
    simdjson::dom::parser parser;
    std::vector<uint8_t> padded;
};

FieldThreadState &fieldThreadState() {
    thread_local FieldThreadState state;
    return state;
}

/// Parses `data` and finds the top-level member `key`; returns the status and the member.
wg_json_field_status findMember(const uint8_t *data, size_t length, const char *key,
                                simdjson::dom::element &member) {
    if (data == nullptr || length == 0 || key == nullptr) { return WG_JSON_FIELD_NOT_OBJECT; }
    FieldThreadState &state = fieldThreadState();
    // simdjson reads up to SIMDJSON_PADDING bytes past the end: copy into a padded buffer.
    if (state.padded.size() < length + simdjson::SIMDJSON_PADDING) {
        state.padded.resize(length + simdjson::SIMDJSON_PADDING);
    }
    std::memcpy(state.padded.data(), data, length);
    simdjson::dom::element root;
    if (state.parser.parse(state.padded.data(), length, false).get(root)) { return WG_JSON_FIELD_NOT_OBJECT; }
    simdjson::dom::object object;
    if (root.get_object().get(object)) { return WG_JSON_FIELD_NOT_OBJECT; }
    // at_key compares raw key bytes: no JSON-pointer escaping to worry about.
    if (object.at_key(std::string_view(key, std::strlen(key))).get(member)) { return WG_JSON_FIELD_MISSING; }
    return WG_JSON_FIELD_OK;
}

} // namespace

extern "C" wg_json_field_status wg_json_get_string(const uint8_t *data, size_t length, const char *key,
                                                   uint8_t *buffer, size_t capacity, size_t *out_length) {
    simdjson::dom::element member;
    wg_json_field_status status = findMember(data, length, key, member);
    if (status != WG_JSON_FIELD_OK) { return status; }
    std::string_view text;
    if (member.get_string().get(text)) { return WG_JSON_FIELD_WRONG_TYPE; }
    if (out_length) { *out_length = text.size(); }
    size_t copied = text.size() < capacity ? text.size() : capacity;
    if (buffer && copied > 0) { std::memcpy(buffer, text.data(), copied); }
    return copied == text.size() ? WG_JSON_FIELD_OK : WG_JSON_FIELD_TRUNCATED;
}

extern "C" wg_json_field_status wg_json_get_double(const uint8_t *data, size_t length, const char *key,
                                                   double *out_value) {
    simdjson::dom::element member;
    wg_json_field_status status = findMember(data, length, key, member);
    if (status != WG_JSON_FIELD_OK) { return status; }
    double number = 0;
    // get_double accepts int64, uint64 and double members alike.
    if (member.get_double().get(number)) { return WG_JSON_FIELD_WRONG_TYPE; }
    if (out_value) { *out_value = number; }
    return WG_JSON_FIELD_OK;
}
