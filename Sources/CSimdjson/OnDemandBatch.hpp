// The fast path of the batch decoders (CSimdjsonDecoding.cpp): simdjson's on-demand API reads a
// batch straight into the caller's sample buffer, without building a DOM. Not part of the
// module's C interface.
//
// It accepts only what it can read completely, so it validates all of it: the contract's members
// in any order (one dispatch on the key, the same cost for every order), no unknown or repeated
// member, every value of a type the DOM path reports the same way, nothing after the root object.
// Anything else (and every malformed payload) returns false, and the caller runs the DOM path from
// scratch, which decides and reports exactly as before. Numbers are read by the shim's own
// reader (DecimalReader.hpp), not simdjson's `get_double`. It saves ≈ 40 % of the DOM path's time
// on the simulator's tidy frames and more than that reader's share on full-precision numbers
// (docs/performance.md), provided its lambdas are inlined (WG_INLINE_LAMBDA) and simdjson's
// assertions are compiled out (NDEBUG, Package.swift): otherwise it is slower.
#ifndef WEARABLE_GATEWAY_ON_DEMAND_BATCH_HPP
#define WEARABLE_GATEWAY_ON_DEMAND_BATCH_HPP

#include "CSimdjsonDecoding.h"
#include "DecimalReader.hpp"
#include "DocumentReader.hpp"

#include <cmath>
#include <cstring>
#include <simdjson.h>
#include <string_view>

namespace wg {
namespace fast {

namespace od = simdjson::ondemand;

/// One on-demand parser per thread, as the DOM path keeps its own (the padded input copy is
/// shared: ``paddedInput``).
inline od::parser &onDemandParser() {
    thread_local od::parser parser;
    return parser;
}

/// Whether the on-demand parser reads this number token exactly as the DOM parser does: up to 19
/// significant digits (leading zeros not counted, as simdjson counts them), which every double
/// printed in full (17 digits) meets. Longer mantissas take a slower path that in simdjson 3.0.1
/// returns wrong values (0.1000000000000000055511151231257827 reads as 4.1e-16), and integers
/// beyond 64 bits, which the DOM parser rejects, read as doubles.
WG_ALWAYS_INLINE bool exactlyReadable(std::string_view token) {
    if (token.size() <= 19) { return true; }
    // A shortest round-trip double such as -0.012345678901234567 is longer than 19 characters
    // but has at most 17 digits once the sign, "0." and leading zeros are set aside: decided
    // without counting every digit.
    size_t start = 0;
    if (token[start] == '-') { start++; }
    while (start < token.size() && (token[start] == '0' || token[start] == '.')) { start++; }
    if (token.size() - start <= 19) { return true; }
    size_t digits = 0;
    for (char c : token.substr(start)) {
        if (c == 'e' || c == 'E' || c == ' ' || c == '\t' || c == '\n' || c == '\r') { break; }
        if (c >= '0' && c <= '9') { digits++; }
    }
    return digits <= 19;
}

/// Magnitudes from 2⁶³ on are left to the DOM parser, which rejects integers beyond 64 bits
/// (such as -9223372036854775809) that the on-demand parser reads as doubles.
constexpr double smallestLeftToDom = 9223372036854775808.0;

/// A required number, read by ``readDecimal`` where it stands (the value is left unconsumed: the
/// member loop's next step skips it). Left to the DOM path: what ``readDecimal`` declines,
/// magnitudes from ``smallestLeftToDom`` on, and a negative zero (the DOM parser reads `-0` as the
/// integer 0).
WG_ALWAYS_INLINE bool number(od::value value, double &out) {
    if (!readDecimal(reinterpret_cast<const uint8_t *>(value.raw_json_token().data()), out)) { return false; }
    return (out != 0 || !std::signbit(out)) && std::fabs(out) < smallestLeftToDom;
}

/// Reads every member of `object`, in whatever order it comes, with `read(key, value)`: it
/// returns the member's bit (a power of two) after reading the value, or 0 for a member it does
/// not take (unknown, an escaped key, a value it declines). True when every member was taken,
/// none twice (the DOM path's "first wins" is left to it) and all of `required` were present.
/// The dispatch costs the same for any order, so member order never picks a path.
template <typename Read>
WG_ALWAYS_INLINE bool eachMember(od::object object, uint32_t required, Read read) {
    uint32_t seen = 0;
    od::object_iterator field = object.begin(), end = object.end();
    for (; field != end; ++field) {
        od::field current;
        if ((*field).get(current)) { return false; }
        uint32_t bit = read(current.key(), current.value());
        if (bit == 0 || (seen & bit) != 0) { return false; }
        seen |= bit;
    }
    return (seen & required) == required;
}

/// Whether `key` (raw, after its opening quote) is exactly `name`: the dispatch has already
/// matched its first character; an escaped key never matches and goes to the DOM path.
WG_ALWAYS_INLINE bool is(od::raw_json_string key, std::string_view name) { return key.unsafe_is_equal(name); }

/// The bit of a one-letter component key `"x"`, `"y"`, `"z"` (1, 2, 4) or `"w"` (8, when
/// `withW`), or 0.
WG_ALWAYS_INLINE uint32_t componentBit(od::raw_json_string key, bool withW) {
    const char *raw = key.raw();
    if (raw[1] != '"') { return 0; }
    switch (raw[0]) {
    case 'x': return 1;
    case 'y': return 2;
    case 'z': return 4;
    case 'w': return withW ? 8 : 0;
    default: return 0;
    }
}

/// `{"x","y","z"}` in any order, nothing else.
WG_ALWAYS_INLINE bool vector(od::value value, wg_vector3 &out) {
    od::object object;
    if (value.get_object().get(object)) { return false; }
    return eachMember(object, 7, [&](od::raw_json_string key, od::value v) WG_INLINE_LAMBDA -> uint32_t {
        uint32_t bit = componentBit(key, false);
        double *slot = bit == 1 ? &out.x : bit == 2 ? &out.y : &out.z;
        return bit != 0 && number(v, *slot) ? bit : 0;
    });
}

/// `{"x","y","z","w"}` in any order, nothing else.
WG_ALWAYS_INLINE bool quaternion(od::value value, wg_quaternion &out) {
    od::object object;
    if (value.get_object().get(object)) { return false; }
    return eachMember(object, 15, [&](od::raw_json_string key, od::value v) WG_INLINE_LAMBDA -> uint32_t {
        uint32_t bit = componentBit(key, true);
        double *slot = bit == 1 ? &out.x : bit == 2 ? &out.y : bit == 4 ? &out.z : &out.w;
        return bit != 0 && number(v, *slot) ? bit : 0;
    });
}

/// A member reported as a tagged scalar, typed as the DOM path types it; strings are copied into
/// `members->strings`. Arrays and objects (which the DOM path validates whole) are not read here.
inline bool scalar(od::value value, wg_json_members *members, wg_json_scalar &out) {
    out = wg_json_scalar();
    od::json_type type;
    if (value.type().get(type)) { return false; }
    switch (type) {
    case od::json_type::null: {
        bool null = false;
        if (value.is_null().get(null) || !null) { return false; }
        out.type = WG_JSON_NULL;
        return true;
    }
    case od::json_type::boolean: {
        bool flag = false;
        if (value.get_bool().get(flag)) { return false; }
        out.type = WG_JSON_BOOL;
        out.boolean = flag ? 1 : 0;
        return true;
    }
    case od::json_type::number: {
        // Typed first, then read by type (`get_number` loses long mantissas in simdjson 3.0.1).
        od::number_type kind;
        if (!exactlyReadable(value.raw_json_token()) || value.get_number_type().get(kind)) { return false; }
        switch (kind) {
        case od::number_type::signed_integer:
            out.type = WG_JSON_INT64;
            if (value.get_int64().get(out.int64)) { return false; }
            out.number = static_cast<double>(out.int64);
            return true;
        case od::number_type::unsigned_integer:
            out.type = WG_JSON_UINT64;
            if (value.get_uint64().get(out.uint64)) { return false; }
            out.number = static_cast<double>(out.uint64);
            return true;
        case od::number_type::floating_point_number:
            out.type = WG_JSON_DOUBLE;
            return !value.get_double().get(out.number) && std::fabs(out.number) < smallestLeftToDom;
        }
        return false;
    }
    case od::json_type::string: {
        std::string_view text;
        if (value.get_string().get(text) || members == nullptr || members->strings == nullptr
            || members->string_capacity - members->string_length < text.size()) {
            return false;
        }
        std::memcpy(members->strings + members->string_length, text.data(), text.size());
        out.type = WG_JSON_STRING;
        out.string_offset = members->string_length;
        out.string_length = text.size();
        members->string_length += text.size();
        return true;
    }
    default:
        return false;
    }
}

/// Decodes `{"<requested members>"…, "samples":[…]}` (members in any order, each once, nothing
/// unknown) with `readSample(object, members, sample)` per element. False: run the DOM path.
template <typename Sample, typename ReadSample>
bool decodeBatch(const uint8_t *data, size_t length, wg_json_members *members, Sample *samples, size_t capacity,
                 size_t *count, ReadSample readSample) {
    if (data == nullptr || length == 0 || samples == nullptr || (members != nullptr && members->count > 64)) { return false; }
    PaddedInput input = paddedInput(data, length, members);
    od::document document;
    od::object root;
    if (onDemandParser().iterate(input.bytes, length, input.capacity).get(document) || document.get_object().get(root)) {
        return false;
    }
    if (members != nullptr) {
        members->string_length = 0;
        for (size_t index = 0; index < members->count; index++) { members->values[index] = wg_json_scalar(); }
    }
    uint64_t seen = 0;
    bool sawSamples = false;
    size_t decoded = 0;
    for (simdjson::simdjson_result<od::field> result : root) {
        od::field field;
        if (std::move(result).get(field)) { return false; }
        if (field.key().unsafe_is_equal("samples")) {
            od::array array;
            if (sawSamples || field.value().get_array().get(array)) { return false; }
            sawSamples = true;
            for (simdjson::simdjson_result<od::value> element : array) {
                od::object object;
                if (decoded == capacity || element.get_object().get(object) || !readSample(object, members, samples[decoded])) {
                    return false;
                }
                decoded++;
            }
            continue;
        }
        // A requested member, first seen; anything else is left to the DOM path.
        size_t index = 0;
        const char *key = members ? members->keys : nullptr;
        while (members && index < members->count && !field.key().unsafe_is_equal(std::string_view(key))) {
            key += std::strlen(key) + 1;
            index++;
        }
        if (members == nullptr || index == members->count || (seen >> index & 1)) { return false; }
        seen |= uint64_t(1) << index;
        if (!scalar(field.value(), members, members->values[index])) { return false; }
    }
    // Nothing may follow the root object (the DOM path rejects trailing content).
    const char *location = nullptr;
    if (!sawSamples || !document.current_location().get(location)) { return false; }
    if (count) { *count = decoded; }
    return true;
}

/// `{"timestamp", "acceleration":{x,y,z}}`, members in any order.
WG_ALWAYS_INLINE bool accelerometerSample(od::object object, wg_json_members *, wg_accelerometer_sample &sample) {
    return eachMember(object, 3, [&](od::raw_json_string key, od::value v) WG_INLINE_LAMBDA -> uint32_t {
        switch (key.raw()[0]) {
        case 't': return is(key, "timestamp") && number(v, sample.timestamp) ? 1 : 0;
        case 'a': return is(key, "acceleration") && vector(v, sample.acceleration) ? 2 : 0;
        default: return 0;
        }
    });
}

/// A device motion's `"magneticField"`: `{"x","y","z","accuracy"?}` in any order, or null (as
/// the DOM path: not reported).
WG_ALWAYS_INLINE bool magneticField(od::value value, wg_json_members *members, wg_device_motion_sample &sample) {
    od::json_type type;
    if (value.type().get(type)) { return false; }
    if (type == od::json_type::null) {
        bool null = false;
        return !value.is_null().get(null) && null;
    }
    od::object object;
    if (value.get_object().get(object)) { return false; }
    sample.has_magnetic_field = 1;
    return eachMember(object, 7, [&](od::raw_json_string key, od::value v) WG_INLINE_LAMBDA -> uint32_t {
        if (key.raw()[0] == 'a') { return is(key, "accuracy") && scalar(v, members, sample.magnetic_field_accuracy) ? 8 : 0; }
        uint32_t bit = componentBit(key, false);
        double *slot = bit == 1 ? &sample.magnetic_field.x : bit == 2 ? &sample.magnetic_field.y : &sample.magnetic_field.z;
        return bit != 0 && number(v, *slot) ? bit : 0;
    });
}

/// A DeviceMotion sample: `"timestamp"`, `"attitude"`, `"rotationRate"`, `"gravity"`,
/// `"userAcceleration"`, and optionally `"sensorLocation"`, `"magneticField"`, `"heading"`, in
/// any order (their first letters differ, so one switch finds each).
WG_ALWAYS_INLINE bool deviceMotionSample(od::object object, wg_json_members *members, wg_device_motion_sample &sample) {
    sample.has_magnetic_field = 0;
    sample.magnetic_field = wg_vector3{0, 0, 0};
    sample.magnetic_field_accuracy = wg_json_scalar();
    sample.sensor_location = wg_json_scalar();
    sample.heading = wg_json_scalar();
    return eachMember(object, 31, [&](od::raw_json_string key, od::value v) WG_INLINE_LAMBDA -> uint32_t {
        switch (key.raw()[0]) {
        case 't': return is(key, "timestamp") && number(v, sample.timestamp) ? 1 : 0;
        case 'a': return is(key, "attitude") && quaternion(v, sample.attitude) ? 2 : 0;
        case 'r': return is(key, "rotationRate") && vector(v, sample.rotation_rate) ? 4 : 0;
        case 'g': return is(key, "gravity") && vector(v, sample.gravity) ? 8 : 0;
        case 'u': return is(key, "userAcceleration") && vector(v, sample.user_acceleration) ? 16 : 0;
        case 's': return is(key, "sensorLocation") && scalar(v, members, sample.sensor_location) ? 32 : 0;
        case 'm': return is(key, "magneticField") && magneticField(v, members, sample) ? 64 : 0;
        case 'h': return is(key, "heading") && scalar(v, members, sample.heading) ? 128 : 0;
        default: return 0;
        }
    });
}

} // namespace fast
} // namespace wg

#endif
