// The fast path of the batch decoders (CSimdjsonDecoding.cpp): simdjson's on-demand API reads a
// batch in the contract's canonical layout straight into the caller's sample buffer, without
// building a DOM. Not part of the module's C interface.
//
// It accepts only what it can read completely, so it validates all of it: every member in the
// order the contract's encoders write it, no unknown or repeated member, every value of a type
// the DOM path reports the same way, nothing after the root object. Anything else (and every
// malformed payload) returns false, and the caller runs the DOM path from scratch, which decides
// and reports exactly as before. On the simulator's and the encoders' frames it saves ≈ 40 % of
// the DOM path's time (docs/performance.md), provided its lambdas are inlined (WG_INLINE_LAMBDA)
// and simdjson's assertions are compiled out (NDEBUG, Package.swift): otherwise it is slower.
#ifndef WEARABLE_GATEWAY_ON_DEMAND_BATCH_HPP
#define WEARABLE_GATEWAY_ON_DEMAND_BATCH_HPP

#include "CSimdjsonDecoding.h"
#include "DocumentReader.hpp"

#include <cmath>
#include <cstring>
#include <simdjson.h>
#include <string_view>

namespace wg {
namespace fast {

namespace od = simdjson::ondemand;

/// One on-demand parser per thread, as the DOM path keeps its own (the padded input copy is
/// shared: ``paddedCopy``).
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
    size_t digits = 0;
    bool leading = true;
    for (char c : token) {
        if (c == 'e' || c == 'E' || c == ' ' || c == '\t' || c == '\n' || c == '\r') { break; }
        if (c < '0' || c > '9' || (leading && c == '0')) { continue; }
        leading = false;
        digits++;
    }
    return digits <= 19;
}

/// Magnitudes from 2⁶³ on are left to the DOM parser, which rejects integers beyond 64 bits
/// (such as -9223372036854775809) that the on-demand parser reads as doubles.
constexpr double smallestLeftToDom = 9223372036854775808.0;

/// A required number. Left to the DOM path: tokens not ``exactlyReadable``, magnitudes from
/// ``smallestLeftToDom`` on, and a negative zero (the DOM parser reads `-0` as the integer 0).
WG_ALWAYS_INLINE bool number(od::value value, double &out) {
    if (!exactlyReadable(value.raw_json_token()) || value.get_double().get(out)) { return false; }
    return (out != 0 || !std::signbit(out)) && std::fabs(out) < smallestLeftToDom;
}

/// Reads the next member of an object, which must be named `key`, with `read(value)`.
template <typename Read>
WG_ALWAYS_INLINE bool member(od::object_iterator &field, const od::object_iterator &end, std::string_view key, Read read) {
    if (!(field != end)) { return false; }
    od::field current;
    if ((*field).get(current) || !current.key().unsafe_is_equal(key) || !read(current.value())) { return false; }
    ++field;
    return true;
}

/// Whether the object has no member left (an error after the last one also counts as one left).
WG_ALWAYS_INLINE bool finished(const od::object_iterator &field, const od::object_iterator &end) { return !(field != end); }

/// The members `"x"`, `"y"`, `"z"` next, in this order: a vector's, or the start of a quaternion's.
template <typename Components>
WG_ALWAYS_INLINE bool xyz(od::object_iterator &field, const od::object_iterator &end, Components &out) {
    return member(field, end, "x", [&](od::value v) WG_INLINE_LAMBDA { return number(v, out.x); })
        && member(field, end, "y", [&](od::value v) WG_INLINE_LAMBDA { return number(v, out.y); })
        && member(field, end, "z", [&](od::value v) WG_INLINE_LAMBDA { return number(v, out.z); });
}

/// `{"x","y","z"}`, in this order, nothing else.
WG_ALWAYS_INLINE bool vector(od::value value, wg_vector3 &out) {
    od::object object;
    if (value.get_object().get(object)) { return false; }
    od::object_iterator field = object.begin(), end = object.end();
    return xyz(field, end, out) && finished(field, end);
}

/// `{"x","y","z","w"}`, in this order, nothing else.
WG_ALWAYS_INLINE bool quaternion(od::value value, wg_quaternion &out) {
    od::object object;
    if (value.get_object().get(object)) { return false; }
    od::object_iterator field = object.begin(), end = object.end();
    return xyz(field, end, out) && member(field, end, "w", [&](od::value v) WG_INLINE_LAMBDA { return number(v, out.w); })
        && finished(field, end);
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
    PaddedInput input = paddedCopy(data, length);
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

/// `{"timestamp", "acceleration":{x,y,z}}`.
WG_ALWAYS_INLINE bool accelerometerSample(od::object object, wg_json_members *, wg_accelerometer_sample &sample) {
    od::object_iterator field = object.begin(), end = object.end();
    return member(field, end, "timestamp", [&](od::value v) WG_INLINE_LAMBDA { return number(v, sample.timestamp); })
        && member(field, end, "acceleration", [&](od::value v) WG_INLINE_LAMBDA { return vector(v, sample.acceleration); }) && finished(field, end);
}

/// `{"timestamp", "attitude", "rotationRate", "gravity", "userAcceleration", "sensorLocation",
/// "magneticField"?, "heading"?}` as the encoders write it (DeviceMotion+ContractJSON.swift).
WG_ALWAYS_INLINE bool deviceMotionSample(od::object object, wg_json_members *members, wg_device_motion_sample &sample) {
    od::object_iterator field = object.begin(), end = object.end();
    if (!(member(field, end, "timestamp", [&](od::value v) WG_INLINE_LAMBDA { return number(v, sample.timestamp); })
          && member(field, end, "attitude", [&](od::value v) WG_INLINE_LAMBDA { return quaternion(v, sample.attitude); })
          && member(field, end, "rotationRate", [&](od::value v) WG_INLINE_LAMBDA { return vector(v, sample.rotation_rate); })
          && member(field, end, "gravity", [&](od::value v) WG_INLINE_LAMBDA { return vector(v, sample.gravity); })
          && member(field, end, "userAcceleration", [&](od::value v) WG_INLINE_LAMBDA { return vector(v, sample.user_acceleration); })
          && member(field, end, "sensorLocation", [&](od::value v) WG_INLINE_LAMBDA { return scalar(v, members, sample.sensor_location); }))) {
        return false;
    }
    sample.has_magnetic_field = 0;
    sample.magnetic_field = wg_vector3{0, 0, 0};
    sample.magnetic_field_accuracy = wg_json_scalar();
    sample.heading = wg_json_scalar();
    // Then "magneticField" (an object) and "heading", each optional, in this order.
    bool magnetic = false, heading = false;
    for (; field != end; ++field) {
        od::field current;
        if ((*field).get(current)) { return false; }
        if (!magnetic && !heading && current.key().unsafe_is_equal("magneticField")) {
            magnetic = true;
            od::object object;
            if (current.value().get_object().get(object)) { return false; }
            od::object_iterator inner = object.begin(), innerEnd = object.end();
            if (!(member(inner, innerEnd, "x", [&](od::value v) WG_INLINE_LAMBDA { return number(v, sample.magnetic_field.x); })
                  && member(inner, innerEnd, "y", [&](od::value v) WG_INLINE_LAMBDA { return number(v, sample.magnetic_field.y); })
                  && member(inner, innerEnd, "z", [&](od::value v) WG_INLINE_LAMBDA { return number(v, sample.magnetic_field.z); })
                  && member(inner, innerEnd, "accuracy", [&](od::value v) WG_INLINE_LAMBDA { return scalar(v, members, sample.magnetic_field_accuracy); })
                  && finished(inner, innerEnd))) {
                return false;
            }
            sample.has_magnetic_field = 1;
        } else if (!heading && current.key().unsafe_is_equal("heading")) {
            heading = true;
            if (!scalar(current.value(), members, sample.heading)) { return false; }
        } else {
            return false;
        }
    }
    return true;
}

} // namespace fast
} // namespace wg

#endif
