// Private helpers of the frame decoders (CSimdjsonDecoding.cpp): the per-thread parser, problem reporting with member
// paths, and typed member readers. Not part of the module's C interface.
#ifndef WEARABLE_GATEWAY_DOCUMENT_READER_HPP
#define WEARABLE_GATEWAY_DOCUMENT_READER_HPP

#include "CSimdjsonDecoding.h"

#include <simdjson.h>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string_view>
#include <vector>

/// Forces inlining of the per-sample readers: as calls they would compare keys with out-of-line
/// strlen/memcmp instead of constant-length comparisons.
#define WG_ALWAYS_INLINE inline __attribute__((always_inline))
/// The same for a lambda (after its parameter list), for clang (which SwiftPM builds with): it
/// keeps the fast path's per-member lambdas out of line otherwise, and passes their arguments
/// through memory (measured on the earlier on-demand fast path: inlined, it took half the time).
/// GCC passed them in registers and was slower with them inlined (docs/performance.md).
#if defined(__clang__)
#define WG_INLINE_LAMBDA __attribute__((always_inline))
#else
#define WG_INLINE_LAMBDA
#endif

namespace wg {

/// Where a member sits: optionally inside element `index` of array `array`, then inside member
/// `object` (e.g. samples[3] . attitude). Formatted only when a problem is reported.
struct Location {
    std::string_view array;
    size_t index = 0;
    std::string_view object;

    Location inObject(std::string_view name) const {
        Location nested = *this;
        nested.object = name;
        return nested;
    }
};

/// Finds the first member named `key` (as DOM `at_key`, which the contract's "first wins" relies
/// on), written so that comparisons against literal keys inline.
WG_ALWAYS_INLINE bool findMember(simdjson::dom::object object, std::string_view key, simdjson::dom::element &value) {
    for (simdjson::dom::key_value_pair field : object) {
        if (field.key == key) {
            value = field.value;
            return true;
        }
    }
    return false;
}

/// The payload's bytes with at least SIMDJSON_PADDING readable bytes after them (simdjson and the
/// number reader may read that far past the end): the payload where it is when the caller says
/// enough bytes after it are readable (`members->input_readable`, see wg_json_members); otherwise
/// a copy of it in the calling thread's padded buffer, one for both paths: it grows to the largest
/// payload seen and is reused, so a call allocates nothing after that. Valid until the thread's
/// next call.
const uint8_t *paddedInput(const uint8_t *data, size_t length, const wg_json_members *members);

/// Decodes one document: owns the status of the call and writes the caller's problem report.
/// Every reader returns false after recording the first problem; callers stop there.
class DocumentReader {
public:
    DocumentReader(wg_json_members *members, wg_decode_problem *problem) : members_(members), problem_(problem) {
        if (problem_) {
            problem_->field[0] = '\0';
            problem_->message[0] = '\0';
        }
        if (members_) { members_->string_length = 0; }
    }

    wg_decode_status status() const { return status_; }

    /// Parses `data` (copied into the thread's padded buffer) and checks that it is an object.
    bool parseRoot(const uint8_t *data, size_t length, simdjson::dom::object &root);

    /// Fills `members->values` from the top-level object.
    bool readMembers(simdjson::dom::object root);

    /// Reads the required top-level array `key`.
    bool requiredArray(simdjson::dom::object object, std::string_view key, simdjson::dom::array &array);

    /// Reads array element `location.index` as an object.
    WG_ALWAYS_INLINE bool elementObject(simdjson::dom::element element, const Location &location, simdjson::dom::object &object) {
        if (element.get_object().get(object)) { return fail(WG_DECODE_WRONG_TYPE, location, {}, "not an object"); }
        return true;
    }

    /// Reads the required member `key` as an object.
    WG_ALWAYS_INLINE bool requiredObject(simdjson::dom::object object, const Location &location, std::string_view key,
                        simdjson::dom::object &member) {
        simdjson::dom::element element;
        if (!findMember(object, key, element)) { return fail(WG_DECODE_MISSING, location, key, "missing"); }
        if (element.get_object().get(member)) { return fail(WG_DECODE_WRONG_TYPE, location, key, "not an object"); }
        return true;
    }

    /// Reads the optional member `key` as an object; absent or null leave `present` false.
    bool optionalObject(simdjson::dom::object object, const Location &location, std::string_view key,
                        simdjson::dom::object &member, bool &present);

    /// Reads the required member `key` as a number (integer or floating point).
    WG_ALWAYS_INLINE bool requiredNumber(simdjson::dom::object object, const Location &location, std::string_view key, double &value) {
        simdjson::dom::element element;
        if (!findMember(object, key, element)) { return fail(WG_DECODE_MISSING, location, key, "missing"); }
        // get_double accepts int64, uint64 and double members alike.
        if (element.get_double().get(value)) { return fail(WG_DECODE_WRONG_TYPE, location, key, "not a number"); }
        return true;
    }

    /// Reads the members x, y and z of `object`, a vector at `location`.
    WG_ALWAYS_INLINE bool vectorComponents(simdjson::dom::object object, const Location &location, wg_vector3 &vector) {
        return requiredNumber(object, location, "x", vector.x) && requiredNumber(object, location, "y", vector.y)
            && requiredNumber(object, location, "z", vector.z);
    }

    /// Reads the required vector member `key` ({x, y, z}).
    WG_ALWAYS_INLINE bool requiredVector(simdjson::dom::object object, const Location &location, std::string_view key, wg_vector3 &vector) {
        simdjson::dom::object member;
        return requiredObject(object, location, key, member) && vectorComponents(member, location.inObject(key), vector);
    }

    /// Reads the required quaternion member `key` ({x, y, z, w}).
    WG_ALWAYS_INLINE bool requiredQuaternion(simdjson::dom::object object, const Location &location, std::string_view key,
                            wg_quaternion &quaternion) {
        simdjson::dom::object member;
        if (!requiredObject(object, location, key, member)) { return false; }
        Location inner = location.inObject(key);
        return requiredNumber(member, inner, "x", quaternion.x) && requiredNumber(member, inner, "y", quaternion.y)
            && requiredNumber(member, inner, "z", quaternion.z) && requiredNumber(member, inner, "w", quaternion.w);
    }

    /// Reports member `key` as a tagged scalar (WG_JSON_ABSENT when missing); copies strings.
    bool scalarMember(simdjson::dom::object object, const Location &location, std::string_view key,
                      wg_json_scalar &scalar);

    /// Records a problem at `location` . `member` and returns false.
    bool fail(wg_decode_status status, const Location &location, std::string_view member, const char *message);

    /// Records a problem about the whole payload and returns false.
    bool failPayload(wg_decode_status status, const char *prefix, const char *message);

private:
    bool scalar(simdjson::dom::element element, const Location &location, std::string_view key, wg_json_scalar &scalar);

    wg_json_members *members_;
    wg_decode_problem *problem_;
    wg_decode_status status_ = WG_DECODE_OK;
};

/// Runs `body` and turns any C++ exception into WG_DECODE_INTERNAL, so none crosses the C boundary.
template <typename Body>
wg_decode_status guarded(wg_decode_problem *problem, Body &&body) noexcept {
#if defined(__cpp_exceptions)
    try {
        return body();
    } catch (const std::exception &error) {
        if (problem) {
            problem->field[0] = '\0';
            std::snprintf(problem->message, sizeof problem->message, "internal decoder error: %s", error.what());
        }
    } catch (...) {
        if (problem) {
            problem->field[0] = '\0';
            std::snprintf(problem->message, sizeof problem->message, "internal decoder error");
        }
    }
    return WG_DECODE_INTERNAL;
#else
    return body();
#endif
}

} // namespace wg

#endif
