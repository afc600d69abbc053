// libFuzzer harness for the JSON batch decoders (Sources/CSimdjson): the one-pass fast path
// against simdjson's DOM path, under the address and undefined-behaviour sanitizers. Built and run
// by scripts/fuzz.sh; docs/testing.md ("Fuzzing").
//
// One input: the first byte's lowest bit says whether the payload is parsed in place (followed
// by WG_JSON_READ_AHEAD readable bytes, as the transport hands it over) or copied; the rest is
// the payload, decoded as an accelerometer batch and as a device-motion batch. A crash is: a
// sanitizer report; the fast path returning anything but OK or DECLINED; or the fast path
// reading a payload with another result than the DOM path's (status, count, every sample's
// numbers bit for bit, the reported members).
#include "CSimdjsonDecoding.h"

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

using AccelerometerDecoder = wg_decode_status (*)(const uint8_t *, size_t, wg_json_members *, wg_accelerometer_sample *,
                                                  size_t, size_t *, wg_decode_problem *);
using DeviceMotionDecoder = wg_decode_status (*)(const uint8_t *, size_t, wg_json_members *, wg_device_motion_sample *,
                                                 size_t, size_t *, wg_decode_problem *);

/// The members both paths are asked for: "sequence" (a number in the contract) and "note" (any scalar).
constexpr char requestedKeys[] = "sequence\0note\0";
constexpr size_t requestedCount = 2;

/// One call's results.
template <typename Sample>
struct Outcome {
    wg_decode_status status = WG_DECODE_OK;
    size_t count = 0;
    std::vector<Sample> samples;
    wg_json_scalar values[requestedCount] = {};
    std::vector<uint8_t> strings;
};

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool sameScalar(const wg_json_scalar &a, const std::vector<uint8_t> &aStrings, const wg_json_scalar &b,
                const std::vector<uint8_t> &bStrings) {
    if (a.type != b.type || a.boolean != b.boolean || a.int64 != b.int64 || a.uint64 != b.uint64 || !sameBits(a.number, b.number)) {
        return false;
    }
    if (a.type != WG_JSON_STRING) { return true; }
    return a.string_length == b.string_length
        && std::memcmp(aStrings.data() + a.string_offset, bStrings.data() + b.string_offset, a.string_length) == 0;
}

bool sameSample(const wg_accelerometer_sample &a, const std::vector<uint8_t> &, const wg_accelerometer_sample &b,
                const std::vector<uint8_t> &) {
    return std::memcmp(&a, &b, sizeof a) == 0;  // four doubles, no padding
}

bool sameSample(const wg_device_motion_sample &a, const std::vector<uint8_t> &aStrings, const wg_device_motion_sample &b,
                const std::vector<uint8_t> &bStrings) {
    // The doubles before the flag compared as bytes (no padding among them), the rest field by field.
    return std::memcmp(&a, &b, offsetof(wg_device_motion_sample, has_magnetic_field)) == 0
        && a.has_magnetic_field == b.has_magnetic_field
        && std::memcmp(&a.magnetic_field, &b.magnetic_field, sizeof a.magnetic_field) == 0
        && sameScalar(a.magnetic_field_accuracy, aStrings, b.magnetic_field_accuracy, bStrings)
        && sameScalar(a.sensor_location, aStrings, b.sensor_location, bStrings)
        && sameScalar(a.heading, aStrings, b.heading, bStrings);
}

template <typename Sample, typename Decoder>
Outcome<Sample> run(Decoder decoder, const uint8_t *payload, size_t length, size_t readable) {
    Outcome<Sample> outcome;
    const size_t capacity = length / 16 + 1;
    outcome.samples.resize(capacity);
    std::memset(static_cast<void *>(outcome.samples.data()), 0xA5, capacity * sizeof(Sample));
    outcome.strings.assign(length + 1, 0);
    wg_json_members members{requestedKeys, requestedCount, outcome.values, outcome.strings.data(), outcome.strings.size(), 0, readable};
    wg_decode_problem problem{};
    outcome.status = decoder(payload, length, &members, outcome.samples.data(), capacity, &outcome.count, &problem);
    return outcome;
}

template <typename Sample, typename Decoder>
void compare(const char *name, Decoder fast, Decoder dom, const uint8_t *payload, size_t length, bool inPlace) {
    // In place: the payload followed by readable bytes (spaces, as the transport pads); otherwise
    // an exact copy, so that the address sanitizer sees every read past the end.
    std::vector<uint8_t> input(payload, payload + length);
    if (inPlace) { input.resize(length + WG_JSON_READ_AHEAD, ' '); }
    const auto fastOutcome = run<Sample>(fast, input.data(), length, inPlace ? input.size() : 0);
    if (fastOutcome.status == WG_DECODE_DECLINED) { return; }
    if (fastOutcome.status != WG_DECODE_OK) {
        std::fprintf(stderr, "%s: the fast path returned status %d (only OK or DECLINED)\n", name, int(fastOutcome.status));
        std::abort();
    }
    const std::vector<uint8_t> copy(payload, payload + length);
    const auto domOutcome = run<Sample>(dom, copy.data(), length, 0);
    bool same = domOutcome.status == WG_DECODE_OK && domOutcome.count == fastOutcome.count;
    for (size_t index = 0; same && index < fastOutcome.count; index++) {
        same = sameSample(fastOutcome.samples[index], fastOutcome.strings, domOutcome.samples[index], domOutcome.strings);
    }
    for (size_t index = 0; same && index < requestedCount; index++) {
        same = sameScalar(fastOutcome.values[index], fastOutcome.strings, domOutcome.values[index], domOutcome.strings);
    }
    if (!same) {
        std::fprintf(stderr, "%s: the fast path read %zu samples; the DOM path answers status %d with %zu\n", name,
                     fastOutcome.count, int(domOutcome.status), domOutcome.count);
        std::abort();
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0) { return 0; }
    const bool inPlace = (data[0] & 1) != 0;
    compare<wg_accelerometer_sample, AccelerometerDecoder>("accelerometer", wg_decode_accelerometer_batch_fast,
                                                           wg_decode_accelerometer_batch_dom, data + 1, size - 1, inPlace);
    compare<wg_device_motion_sample, DeviceMotionDecoder>("device motion", wg_decode_device_motion_batch_fast,
                                                          wg_decode_device_motion_batch_dom, data + 1, size - 1, inPlace);
    return 0;
}
