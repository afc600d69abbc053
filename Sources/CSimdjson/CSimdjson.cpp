#include "CSimdjson.h"

#include <simdjson.h>
#include <vector>
#include <cstring>

namespace {

/// One parser and padded scratch buffer per thread: simdjson parsers are not thread-safe, and
/// reusing them keeps the hot path free of allocations once warmed up.
struct ThreadState {
    simdjson::dom::parser parser;
    std::vector<uint8_t> padded;
};

ThreadState &threadState() {
    thread_local ThreadState state;
    return state;
}

} // namespace

extern "C" wg_json_status wg_json_validate_object(const uint8_t *data, size_t length, const char **message) {
    if (length == 0) {
        if (message) { *message = "empty payload"; }
        return WG_JSON_EMPTY;
    }
    ThreadState &state = threadState();
    // simdjson reads up to SIMDJSON_PADDING bytes past the end: copy into a padded buffer.
    if (state.padded.size() < length + simdjson::SIMDJSON_PADDING) {
        state.padded.resize(length + simdjson::SIMDJSON_PADDING);
    }
    std::memcpy(state.padded.data(), data, length);
    simdjson::dom::element root;
    auto error = state.parser.parse(state.padded.data(), length, false).get(root);
    if (error) {
        if (message) { *message = simdjson::error_message(error); }
        return WG_JSON_NOT_JSON;
    }
    if (root.type() != simdjson::dom::element_type::OBJECT) {
        if (message) { *message = "top-level JSON value is not an object"; }
        return WG_JSON_NOT_OBJECT;
    }
    if (message) { *message = ""; }
    return WG_JSON_OK;
}
