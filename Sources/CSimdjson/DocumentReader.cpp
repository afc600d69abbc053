#include "DocumentReader.hpp"

namespace wg {
namespace {

/// One DOM parser per thread: parsers are not thread-safe, and reusing one keeps calls
/// allocation-free once it has seen the largest payload. The DOM parser picks the best SIMD kernel
/// at run time, and it validates the whole document, ignored members included.
struct ReaderThreadState {
    simdjson::dom::parser parser;
};

ReaderThreadState &readerThreadState() {
    thread_local ReaderThreadState state;
    return state;
}

/// Appends `text` to a NUL-terminated buffer of `capacity` bytes, cutting it if needed.
void append(char *buffer, size_t capacity, size_t &length, std::string_view text) {
    if (length + 1 >= capacity) { return; }
    size_t copied = text.size() < capacity - 1 - length ? text.size() : capacity - 1 - length;
    std::memcpy(buffer + length, text.data(), copied);
    length += copied;
    buffer[length] = '\0';
}

} // namespace

static_assert(WG_JSON_READ_AHEAD == simdjson::SIMDJSON_PADDING, "WG_JSON_READ_AHEAD must be simdjson's padding");

const uint8_t *paddedInput(const uint8_t *data, size_t length, const wg_json_members *members) {
    // The payload arrays of the MQTT transport keep this slack after their bytes: read in place, no copy.
    if (members != nullptr && members->input_readable >= length + simdjson::SIMDJSON_PADDING) {
        return data;
    }
    thread_local std::vector<uint8_t> padded;
    if (padded.size() < length + simdjson::SIMDJSON_PADDING) { padded.resize(length + simdjson::SIMDJSON_PADDING); }
    std::memcpy(padded.data(), data, length);
    return padded.data();
}

bool DocumentReader::parseRoot(const uint8_t *data, size_t length, simdjson::dom::object &root) {
    if (data == nullptr || length == 0) {
        return failPayload(WG_DECODE_NOT_OBJECT, "payload is not a JSON object: ", "empty payload");
    }
    const uint8_t *input = paddedInput(data, length, members_);
    simdjson::dom::element element;
    simdjson::error_code error = readerThreadState().parser.parse(input, length, false).get(element);
    if (error) {
        return failPayload(WG_DECODE_NOT_OBJECT, "payload is not a JSON object: ", simdjson::error_message(error));
    }
    if (element.get_object().get(root)) {
        return failPayload(WG_DECODE_NOT_OBJECT, "payload is not a JSON object: ", "top-level JSON value is not an object");
    }
    return true;
}

bool DocumentReader::readMembers(simdjson::dom::object root) {
    if (members_ == nullptr || members_->count == 0) { return true; }
    const char *key = members_->keys;
    for (size_t index = 0; index < members_->count; index++) {
        std::string_view name(key);
        if (!scalarMember(root, Location(), name, members_->values[index])) { return false; }
        key += name.size() + 1;
    }
    return true;
}

bool DocumentReader::requiredArray(simdjson::dom::object object, std::string_view key, simdjson::dom::array &array) {
    simdjson::dom::element member;
    if (!findMember(object, key, member)) { return fail(WG_DECODE_MISSING, Location(), key, "missing"); }
    if (member.get_array().get(array)) { return fail(WG_DECODE_WRONG_TYPE, Location(), key, "not an array"); }
    return true;
}



bool DocumentReader::optionalObject(simdjson::dom::object object, const Location &location, std::string_view key,
                                    simdjson::dom::object &member, bool &present) {
    present = false;
    simdjson::dom::element element;
    if (!findMember(object, key, element) || element.is_null()) { return true; }
    if (element.get_object().get(member)) { return fail(WG_DECODE_WRONG_TYPE, location, key, "not an object"); }
    present = true;
    return true;
}





bool DocumentReader::scalarMember(simdjson::dom::object object, const Location &location, std::string_view key,
                                  wg_json_scalar &scalar) {
    scalar = wg_json_scalar();
    simdjson::dom::element element;
    if (!findMember(object, key, element)) {
        scalar.type = WG_JSON_ABSENT;
        return true;
    }
    return this->scalar(element, location, key, scalar);
}

bool DocumentReader::scalar(simdjson::dom::element element, const Location &location, std::string_view key,
                            wg_json_scalar &scalar) {
    switch (element.type()) {
    case simdjson::dom::element_type::NULL_VALUE:
        scalar.type = WG_JSON_NULL;
        break;
    case simdjson::dom::element_type::BOOL: {
        bool flag = false;
        (void)element.get_bool().get(flag);
        scalar.type = WG_JSON_BOOL;
        scalar.boolean = flag ? 1 : 0;
        break;
    }
    case simdjson::dom::element_type::INT64:
        scalar.type = WG_JSON_INT64;
        (void)element.get_int64().get(scalar.int64);
        scalar.number = static_cast<double>(scalar.int64);
        break;
    case simdjson::dom::element_type::UINT64:
        scalar.type = WG_JSON_UINT64;
        (void)element.get_uint64().get(scalar.uint64);
        scalar.number = static_cast<double>(scalar.uint64);
        break;
    case simdjson::dom::element_type::DOUBLE:
        scalar.type = WG_JSON_DOUBLE;
        (void)element.get_double().get(scalar.number);
        break;
    case simdjson::dom::element_type::STRING: {
        std::string_view text;
        (void)element.get_string().get(text);
        scalar.type = WG_JSON_STRING;
        if (members_ == nullptr || members_->strings == nullptr
            || members_->string_capacity - members_->string_length < text.size()) {
            return fail(WG_DECODE_CAPACITY, location, key, "string buffer too small (decoder bug)");
        }
        std::memcpy(members_->strings + members_->string_length, text.data(), text.size());
        scalar.string_offset = members_->string_length;
        scalar.string_length = text.size();
        members_->string_length += text.size();
        break;
    }
    case simdjson::dom::element_type::ARRAY:
        scalar.type = WG_JSON_ARRAY;
        break;
    case simdjson::dom::element_type::OBJECT:
        scalar.type = WG_JSON_OBJECT;
        break;
    }
    return true;
}

bool DocumentReader::fail(wg_decode_status status, const Location &location, std::string_view member,
                          const char *message) {
    status_ = status;
    if (problem_ == nullptr) { return false; }
    char *field = problem_->field;
    size_t capacity = sizeof problem_->field;
    size_t length = 0;
    field[0] = '\0';
    if (!location.array.empty()) {
        char index[32];
        std::snprintf(index, sizeof index, "[%zu]", location.index);
        append(field, capacity, length, location.array);
        append(field, capacity, length, index);
    }
    for (std::string_view part : {location.object, member}) {
        if (part.empty()) { continue; }
        if (length > 0) { append(field, capacity, length, "."); }
        append(field, capacity, length, part);
    }
    std::snprintf(problem_->message, sizeof problem_->message, "%s", message);
    return false;
}

bool DocumentReader::failPayload(wg_decode_status status, const char *prefix, const char *message) {
    status_ = status;
    if (problem_ != nullptr) {
        problem_->field[0] = '\0';
        std::snprintf(problem_->message, sizeof problem_->message, "%s%s", prefix, message);
    }
    return false;
}

} // namespace wg
