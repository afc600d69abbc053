// The fast path of the batch decoders (CSimdjsonDecoding.cpp): one pass over the payload's bytes
// that reads the contract's batch shapes straight into the caller's sample buffer. Not part of
// the module's C interface.
//
// Why not simdjson here: its on-demand API first indexes every structural character of the
// payload (stage 1) and then walks that index; on a 90 KB batch of full-precision numbers those
// two steps cost about half of the decoder, for documents whose shape is known before the first
// byte (docs/performance.md, "One pass over a batch"). This scanner knows the shape: it reads a
// key, compares it with the few names its object may have, reads the value, and moves on.
//
// It accepts only a strict subset of JSON, and only what it reads completely: the contract's
// members in any order (one dispatch on the key, the same cost for every order), each at most
// once; JSON whitespace between tokens; keys and strings of printable ASCII without escapes;
// numbers that DecimalReader.hpp reads exactly; integers of up to 18 digits for scalars; nothing
// after the root object. Anything else (every malformed payload, an escape, a byte above 0x7F, an
// unknown or repeated member) returns false, and the caller runs simdjson's DOM path from scratch,
// which decides and reports as always. So every payload either decodes here to exactly the DOM
// path's result or goes to the DOM path (BatchDecoderDifferentialTests).
#ifndef WEARABLE_GATEWAY_BATCH_SCANNER_HPP
#define WEARABLE_GATEWAY_BATCH_SCANNER_HPP

#include "CSimdjsonDecoding.h"
#include "DecimalReader.hpp"
#include "DocumentReader.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string_view>

namespace wg {
namespace scan {

/// Magnitudes from 2⁶³ on are left to the DOM path, which reads integers beyond 64 bits as errors.
constexpr double smallestLeftToDom = 9223372036854775808.0;

/// Whether the `text.size()` bytes at `p` are `text`. Two overlapping loads per eight bytes, which
/// compilers inline for the scanner's constant names; `std::memcmp` was sometimes left a call.
WG_ALWAYS_INLINE bool sameBytes(const uint8_t *p, std::string_view text) {
    const size_t size = text.size();
    auto equalAt = [&](size_t offset, auto word) WG_INLINE_LAMBDA {
        decltype(word) expected;
        std::memcpy(&word, p + offset, sizeof word);
        std::memcpy(&expected, text.data() + offset, sizeof expected);
        return word == expected;
    };
    if (size >= 8) {
        for (size_t offset = 0; offset + 8 < size; offset += 8) {
            if (!equalAt(offset, uint64_t())) { return false; }
        }
        return equalAt(size - 8, uint64_t());
    }
    if (size >= 4) { return equalAt(0, uint32_t()) && equalAt(size - 4, uint32_t()); }
    if (size >= 2) { return equalAt(0, uint16_t()) && equalAt(size - 2, uint16_t()); }
    return size == 0 || *p == uint8_t(text[0]);
}

/// Where the scanner stands in the payload. Every token lies before `end`; only the number reader
/// looks past a token (up to 8 bytes), which the padding after the payload allows.
///
/// `spacedSeparators` is the payload's spacing as ``decodeBatch`` guessed it from its first colon:
/// encoders either write no whitespace or `", "` and `": "` (one space after every separator). A
/// spaced cursor steps over that one space as part of the separator, without a branch, so neither
/// spacing costs a test that fails at every member. Either cursor accepts any JSON whitespace
/// anywhere; the guess only decides which spacing is the cheap one.
template <bool spacedSeparators>
struct Cursor {
    const uint8_t *p;
    const uint8_t *end;

    /// After a consumed `:` or `,`: a spaced cursor steps over one space.
    WG_ALWAYS_INLINE void afterSeparator() {
        if constexpr (spacedSeparators) { p += p < end && *p == ' '; }
    }

    /// Skips JSON whitespace; false at the end of the payload.
    WG_ALWAYS_INLINE bool skipSpace() {
        // Every JSON whitespace byte is at most a space: one comparison where there is none.
        if (p < end && *p > ' ') { return true; }
        constexpr uint64_t whitespace = 1ull << ' ' | 1ull << '\n' | 1ull << '\r' | 1ull << '\t';
        while (p < end && *p <= ' ' && (whitespace >> *p & 1) != 0) { p++; }
        return p < end;
    }

    /// Consumes `c` after optional whitespace.
    WG_ALWAYS_INLINE bool take(uint8_t c) {
        if (!skipSpace() || *p != c) { return false; }
        p++;
        if (c == ':') { afterSeparator(); }
        return true;
    }

    /// Consumes `"…"` of printable ASCII without escapes (after optional whitespace) into `text`.
    WG_ALWAYS_INLINE bool plainString(std::string_view &text) {
        if (!take('"')) { return false; }
        const uint8_t *start = p;
        while (p < end && *p != '"') {
            if (*p < 0x20 || *p >= 0x7F || *p == '\\') { return false; }
            p++;
        }
        if (p == end) { return false; }
        text = std::string_view(reinterpret_cast<const char *>(start), size_t(p - start));
        p++;
        return true;
    }

    /// Consumes a member's key and its colon.
    WG_ALWAYS_INLINE bool key(std::string_view &name) { return plainString(name) && take(':'); }

    /// After a key's opening quote: consumes `rest` (the key's remaining characters and its closing
    /// quote, e.g. `imestamp"`) and the colon, if they are what follows.
    WG_ALWAYS_INLINE bool keyRest(std::string_view rest) {
        if (size_t(end - p) <= rest.size() || !sameBytes(p, rest)) { return false; }
        p += rest.size();
        return take(':');
    }

    /// Consumes `literal` (a keyword), which must be followed by a separator.
    WG_ALWAYS_INLINE bool keyword(std::string_view literal) {
        if (size_t(end - p) <= literal.size() || !sameBytes(p, literal)) { return false; }
        p += literal.size();
        return fast::endsValue(*p);
    }

    /// A required number, as the fast path reads one: what ``fast::readDecimal`` declines, a negative
    /// zero (the DOM parser reads `-0` as the integer 0) and magnitudes from 2⁶³ on are left to the DOM path.
    WG_ALWAYS_INLINE bool number(double &out) {
        if (!skipSpace()) { return false; }
        const uint8_t *after = fast::readDecimal(p, out);
        if (after == nullptr || after >= end) { return false; }
        p = after;
        return (out != 0 || !std::signbit(out)) && std::fabs(out) < smallestLeftToDom;
    }

    /// After a member or element: true and `closed` for `close`, true for a comma, false otherwise.
    WG_ALWAYS_INLINE bool next(uint8_t close, bool &closed) {
        if (!skipSpace()) { return false; }
        uint8_t c = *p++;
        closed = c == close;
        if (c != ',') { return closed; }
        afterSeparator();
        return true;
    }
};

/// Reads the object at the cursor, member by member in whatever order they come, with
/// `read(first, cursor)`, called with the key's first character and the cursor just after it: it
/// consumes the rest of the key (``Cursor/keyRest(_:)``) and the value and returns the member's bit
/// (a power of two), or 0 for a member it does not take. Keys are compared with the names the
/// object may have, byte for byte, so an unknown or escaped key is simply not taken. True when
/// every member was taken, none twice, and all of `required` were present.
template <typename CursorType, typename Read>
WG_ALWAYS_INLINE bool eachMember(CursorType &cursor, uint32_t required, Read read) {
    if (!cursor.take('{') || !cursor.skipSpace()) { return false; }
    if (*cursor.p == '}') {
        cursor.p++;
        return required == 0;
    }
    uint32_t seen = 0;
    for (bool closed = false; !closed;) {
        if (!cursor.take('"') || cursor.p == cursor.end) { return false; }
        uint8_t first = *cursor.p++;
        uint32_t bit = read(first, cursor);
        if (bit == 0 || (seen & bit) != 0 || !cursor.next('}', closed)) { return false; }
        seen |= bit;
    }
    return (seen & required) == required;
}

/// The bit of a one-letter component key `x`, `y`, `z` (1, 2, 4) or `w` (8, when `withW`), after
/// consuming its closing quote and colon; or 0.
template <typename CursorType>
WG_ALWAYS_INLINE uint32_t componentBit(uint8_t first, CursorType &cursor, bool withW) {
    uint32_t bit = first == 'x' ? 1 : first == 'y' ? 2 : first == 'z' ? 4 : first == 'w' && withW ? 8 : 0;
    return bit != 0 && cursor.keyRest("\"") ? bit : 0;
}

/// `{"x","y","z"}` in any order, nothing else.
template <typename CursorType>
WG_ALWAYS_INLINE bool vector(CursorType &cursor, wg_vector3 &out) {
    return eachMember(cursor, 7, [&](uint8_t first, CursorType &c) WG_INLINE_LAMBDA -> uint32_t {
        uint32_t bit = componentBit(first, c, false);
        double *slot = bit == 1 ? &out.x : bit == 2 ? &out.y : &out.z;
        return bit != 0 && c.number(*slot) ? bit : 0;
    });
}

/// `{"x","y","z","w"}` in any order, nothing else.
template <typename CursorType>
WG_ALWAYS_INLINE bool quaternion(CursorType &cursor, wg_quaternion &out) {
    return eachMember(cursor, 15, [&](uint8_t first, CursorType &c) WG_INLINE_LAMBDA -> uint32_t {
        uint32_t bit = componentBit(first, c, true);
        double *slot = bit == 1 ? &out.x : bit == 2 ? &out.y : bit == 4 ? &out.z : &out.w;
        return bit != 0 && c.number(*slot) ? bit : 0;
    });
}

/// An integer of at most 18 digits (below 10¹⁸, so it fits an `int64_t`), typed as the DOM parser types it.
template <typename CursorType>
inline bool integerScalar(CursorType &cursor, wg_json_scalar &out) {
    const uint8_t *p = cursor.p;
    const bool negative = *p == '-';
    p += negative;
    const uint8_t *start = p;
    // Unsigned, so that a longer run of digits (declined below) wraps instead of overflowing.
    uint64_t value = 0;
    for (uint8_t digit = uint8_t(*p - '0'); digit <= 9 && p < cursor.end; digit = uint8_t(*p - '0')) {
        value = value * 10 + digit;
        p++;
    }
    size_t digits = size_t(p - start);
    // "-0" is left to the DOM path too (how it types a negative zero is its business).
    if (digits == 0 || digits > 18 || (*start == '0' && digits > 1) || (negative && value == 0) || p >= cursor.end
        || !fast::endsValue(*p)) {
        return false;
    }
    cursor.p = p;
    out.type = WG_JSON_INT64;
    out.int64 = negative ? -int64_t(value) : int64_t(value);
    out.number = static_cast<double>(out.int64);
    return true;
}

/// A member reported as a tagged scalar, typed as the DOM path types it; strings are copied into
/// `members->strings`. Arrays and objects (which the DOM path validates whole) are not read here.
template <typename CursorType>
inline bool scalar(CursorType &cursor, wg_json_members *members, wg_json_scalar &out) {
    out = wg_json_scalar();
    if (!cursor.skipSpace()) { return false; }
    switch (*cursor.p) {
    case 'n':
        out.type = WG_JSON_NULL;
        return cursor.keyword("null");
    case 't':
        out.type = WG_JSON_BOOL;
        out.boolean = 1;
        return cursor.keyword("true");
    case 'f':
        out.type = WG_JSON_BOOL;
        return cursor.keyword("false");
    case '"': {
        std::string_view text;
        if (!cursor.plainString(text) || members == nullptr || members->strings == nullptr
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
    default: {
        // A number with a point or an exponent is a double to the DOM parser; otherwise an integer.
        const uint8_t *p = cursor.p + (*cursor.p == '-');
        while (p < cursor.end && uint8_t(*p - '0') <= 9) { p++; }
        if (p < cursor.end && (*p == '.' || (*p | 0x20) == 'e')) {
            const uint8_t *after = fast::readDecimal(cursor.p, out.number);
            if (after == nullptr || after >= cursor.end || !(std::fabs(out.number) < smallestLeftToDom)) { return false; }
            cursor.p = after;
            out.type = WG_JSON_DOUBLE;
            return true;
        }
        return integerScalar(cursor, out);
    }
    }
}

/// ``decodeBatch`` with the cursor of the payload's spacing.
template <typename CursorType, typename Sample, typename ReadSample>
bool decodeBatchWith(CursorType cursor, wg_json_members *members, Sample *samples, size_t capacity, size_t *count,
                     ReadSample readSample) {
    if (members != nullptr) {
        members->string_length = 0;
        for (size_t index = 0; index < members->count; index++) { members->values[index] = wg_json_scalar(); }
    }
    uint64_t seen = 0;
    bool sawSamples = false;
    size_t decoded = 0;
    if (!cursor.take('{') || !cursor.skipSpace()) { return false; }
    bool closed = *cursor.p == '}';
    cursor.p += closed;
    while (!closed) {
        std::string_view name;
        if (!cursor.key(name)) { return false; }
        if (name == "samples") {
            if (sawSamples || !cursor.take('[') || !cursor.skipSpace()) { return false; }
            sawSamples = true;
            bool ended = *cursor.p == ']';
            cursor.p += ended;
            while (!ended) {
                if (decoded == capacity || !readSample(cursor, members, samples[decoded]) || !cursor.next(']', ended)) { return false; }
                decoded++;
            }
        } else {
            // A requested member, first seen; anything else is left to the DOM path.
            size_t index = 0;
            const char *key = members ? members->keys : nullptr;
            while (members && index < members->count && name != std::string_view(key)) {
                key += std::strlen(key) + 1;
                index++;
            }
            if (members == nullptr || index == members->count || (seen >> index & 1)) { return false; }
            seen |= uint64_t(1) << index;
            if (!scalar(cursor, members, members->values[index])) { return false; }
        }
        if (!cursor.next('}', closed)) { return false; }
    }
    // Nothing but whitespace may follow the root object (the DOM path rejects trailing content).
    if (!sawSamples || cursor.skipSpace()) { return false; }
    if (count) { *count = decoded; }
    return true;
}

/// Decodes `{"<requested members>"…, "samples":[…]}` (members in any order, each once, nothing
/// unknown) with `readSample(cursor, members, sample)` per element. False: run the DOM path.
template <typename Sample, typename ReadSample>
bool decodeBatch(const uint8_t *data, size_t length, wg_json_members *members, Sample *samples, size_t capacity,
                 size_t *count, ReadSample readSample) {
    if (data == nullptr || length == 0 || samples == nullptr || (members != nullptr && members->count > 64)) { return false; }
    const uint8_t *input = paddedInput(data, length, members);
    const uint8_t *end = input + length;
    // The spacing, from the byte after the first colon (within the first member, whatever it is).
    const void *colon = std::memchr(input, ':', std::min<size_t>(length, 64));
    if (colon != nullptr && static_cast<const uint8_t *>(colon) + 1 < end && static_cast<const uint8_t *>(colon)[1] == ' ') {
        return decodeBatchWith(Cursor<true>{input, end}, members, samples, capacity, count, readSample);
    }
    return decodeBatchWith(Cursor<false>{input, end}, members, samples, capacity, count, readSample);
}

/// `{"timestamp", "acceleration":{x,y,z}}`, members in any order.
template <typename CursorType>
WG_ALWAYS_INLINE bool accelerometerSample(CursorType &cursor, wg_json_members *, wg_accelerometer_sample &sample) {
    return eachMember(cursor, 3, [&](uint8_t first, CursorType &c) WG_INLINE_LAMBDA -> uint32_t {
        switch (first) {
        case 't': return c.keyRest("imestamp\"") && c.number(sample.timestamp) ? 1 : 0;
        case 'a': return c.keyRest("cceleration\"") && vector(c, sample.acceleration) ? 2 : 0;
        default: return 0;
        }
    });
}

/// A device motion's `"magneticField"`: `{"x","y","z","accuracy"?}` in any order, or null (as the
/// DOM path: not reported).
template <typename CursorType>
WG_ALWAYS_INLINE bool magneticField(CursorType &cursor, wg_json_members *members, wg_device_motion_sample &sample) {
    if (!cursor.skipSpace()) { return false; }
    if (*cursor.p == 'n') { return cursor.keyword("null"); }
    sample.has_magnetic_field = 1;
    return eachMember(cursor, 7, [&](uint8_t first, CursorType &c) WG_INLINE_LAMBDA -> uint32_t {
        if (first == 'a') { return c.keyRest("ccuracy\"") && scalar(c, members, sample.magnetic_field_accuracy) ? 8 : 0; }
        uint32_t bit = componentBit(first, c, false);
        double *slot = bit == 1 ? &sample.magnetic_field.x : bit == 2 ? &sample.magnetic_field.y : &sample.magnetic_field.z;
        return bit != 0 && c.number(*slot) ? bit : 0;
    });
}

/// A DeviceMotion sample: `"timestamp"`, `"attitude"`, `"rotationRate"`, `"gravity"`,
/// `"userAcceleration"`, and optionally `"sensorLocation"`, `"magneticField"`, `"heading"`, in any
/// order (their first letters differ, so one switch finds each and one comparison checks the rest).
template <typename CursorType>
WG_ALWAYS_INLINE bool deviceMotionSample(CursorType &cursor, wg_json_members *members, wg_device_motion_sample &sample) {
    sample.has_magnetic_field = 0;
    sample.magnetic_field = wg_vector3{0, 0, 0};
    sample.magnetic_field_accuracy = wg_json_scalar();
    sample.sensor_location = wg_json_scalar();
    sample.heading = wg_json_scalar();
    return eachMember(cursor, 31, [&](uint8_t first, CursorType &c) WG_INLINE_LAMBDA -> uint32_t {
        switch (first) {
        case 't': return c.keyRest("imestamp\"") && c.number(sample.timestamp) ? 1 : 0;
        case 'a': return c.keyRest("ttitude\"") && quaternion(c, sample.attitude) ? 2 : 0;
        case 'r': return c.keyRest("otationRate\"") && vector(c, sample.rotation_rate) ? 4 : 0;
        case 'g': return c.keyRest("ravity\"") && vector(c, sample.gravity) ? 8 : 0;
        case 'u': return c.keyRest("serAcceleration\"") && vector(c, sample.user_acceleration) ? 16 : 0;
        case 's': return c.keyRest("ensorLocation\"") && scalar(c, members, sample.sensor_location) ? 32 : 0;
        case 'm': return c.keyRest("agneticField\"") && magneticField(c, members, sample) ? 64 : 0;
        case 'h': return c.keyRest("eading\"") && scalar(c, members, sample.heading) ? 128 : 0;
        default: return 0;
        }
    });
}

} // namespace scan
} // namespace wg

#endif
