#include "CSimdjsonDecoding.h"
#include "DocumentReader.hpp"
#include "BatchScanner.hpp"

namespace {

using wg::DocumentReader;
using wg::Location;

constexpr std::string_view samplesKey = "samples";

/// Parses the document, reports the members, then reads each element of `"samples"` with
/// `readSample(reader, object, location, sample)` into `samples[0 ..< *count]`.
template <typename Sample, typename ReadSample>
wg_decode_status decodeBatch(const uint8_t *data, size_t length, wg_json_members *members, Sample *samples,
                             size_t capacity, size_t *count, wg_decode_problem *problem, ReadSample readSample) {
    return wg::guarded(problem, [&]() -> wg_decode_status {
        if (count) { *count = 0; }
        DocumentReader reader(members, problem);
        simdjson::dom::object root;
        simdjson::dom::array array;
        if (!reader.parseRoot(data, length, root) || !reader.readMembers(root)
            || !reader.requiredArray(root, samplesKey, array)) {
            return reader.status();
        }
        size_t decoded = 0;
        for (simdjson::dom::element element : array) {
            Location location{samplesKey, decoded, {}};
            if (decoded == capacity || samples == nullptr) {
                reader.fail(WG_DECODE_CAPACITY, location, {}, "sample buffer too small (decoder bug)");
                return reader.status();
            }
            simdjson::dom::object object;
            if (!reader.elementObject(element, location, object) || !readSample(reader, object, location, samples[decoded])) {
                return reader.status();
            }
            decoded++;
            if (count) { *count = decoded; }
        }
        return WG_DECODE_OK;
    });
}

/// The fast path of a batch decoder (BatchScanner.hpp): WG_DECODE_OK when it read the payload,
/// WG_DECODE_DECLINED when the DOM path must.
template <typename Sample, typename ReadSample>
wg_decode_status scannedBatch(const uint8_t *data, size_t length, wg_json_members *members, Sample *samples, size_t capacity,
                              size_t *count, wg_decode_problem *problem, ReadSample readSample) {
    return wg::guarded(problem, [&]() -> wg_decode_status {
        return wg::scan::decodeBatch(data, length, members, samples, capacity, count, readSample) ? WG_DECODE_OK : WG_DECODE_DECLINED;
    });
}

/// A full batch decoder: the fast path, then the DOM path from scratch if it declined.
template <typename Sample, typename Decoder>
wg_decode_status fastThenDom(Decoder fast, Decoder dom, const uint8_t *data, size_t length, wg_json_members *members,
                             Sample *samples, size_t capacity, size_t *count, wg_decode_problem *problem) {
    if (fast(data, length, members, samples, capacity, count, problem) == WG_DECODE_OK) { return WG_DECODE_OK; }
    return dom(data, length, members, samples, capacity, count, problem);
}

} // namespace

extern "C" wg_decode_status wg_decode_members(const uint8_t *data, size_t length, wg_json_members *members,
                                              wg_decode_problem *problem) {
    return wg::guarded(problem, [&]() -> wg_decode_status {
        DocumentReader reader(members, problem);
        simdjson::dom::object root;
        if (!reader.parseRoot(data, length, root) || !reader.readMembers(root)) { return reader.status(); }
        return WG_DECODE_OK;
    });
}

extern "C" wg_decode_status wg_decode_accelerometer_batch_dom(const uint8_t *data, size_t length,
                                                          wg_json_members *members,
                                                          wg_accelerometer_sample *samples, size_t capacity,
                                                          size_t *count, wg_decode_problem *problem) {
    return decodeBatch(data, length, members, samples, capacity, count, problem,
                       [](DocumentReader &reader, simdjson::dom::object object, const Location &location,
                          wg_accelerometer_sample &sample) {
                           return reader.requiredNumber(object, location, "timestamp", sample.timestamp)
                               && reader.requiredVector(object, location, "acceleration", sample.acceleration);
                       });
}

extern "C" wg_decode_status wg_decode_accelerometer_batch_fast(const uint8_t *data, size_t length,
                                                               wg_json_members *members,
                                                               wg_accelerometer_sample *samples, size_t capacity,
                                                               size_t *count, wg_decode_problem *problem) {
    return scannedBatch(data, length, members, samples, capacity, count, problem,
                        [](auto &cursor, auto members, auto &sample) WG_INLINE_LAMBDA { return wg::scan::accelerometerSample(cursor, members, sample); });
}

extern "C" wg_decode_status wg_decode_accelerometer_batch(const uint8_t *data, size_t length,
                                                          wg_json_members *members,
                                                          wg_accelerometer_sample *samples, size_t capacity,
                                                          size_t *count, wg_decode_problem *problem) {
    return fastThenDom(wg_decode_accelerometer_batch_fast, wg_decode_accelerometer_batch_dom, data, length, members, samples,
                       capacity, count, problem);
}

extern "C" wg_decode_status wg_decode_recorded_accelerometer_batch(const uint8_t *data, size_t length,
                                                                   wg_json_members *members,
                                                                   wg_recorded_accelerometer_sample *samples,
                                                                   size_t capacity, size_t *count,
                                                                   wg_decode_problem *problem) {
    return decodeBatch(data, length, members, samples, capacity, count, problem,
                       [](DocumentReader &reader, simdjson::dom::object object, const Location &location,
                          wg_recorded_accelerometer_sample &sample) {
                           return reader.requiredNumber(object, location, "timestamp", sample.timestamp)
                               && reader.requiredNumber(object, location, "startDate", sample.start_date)
                               && reader.requiredVector(object, location, "acceleration", sample.acceleration);
                       });
}

extern "C" wg_decode_status wg_decode_device_motion_batch_dom(const uint8_t *data, size_t length,
                                                          wg_json_members *members,
                                                          wg_device_motion_sample *samples, size_t capacity,
                                                          size_t *count, wg_decode_problem *problem) {
    return decodeBatch(data, length, members, samples, capacity, count, problem,
                       [](DocumentReader &reader, simdjson::dom::object object, const Location &location,
                          wg_device_motion_sample &sample) {
                           if (!reader.requiredNumber(object, location, "timestamp", sample.timestamp)
                               || !reader.requiredQuaternion(object, location, "attitude", sample.attitude)
                               || !reader.requiredVector(object, location, "rotationRate", sample.rotation_rate)
                               || !reader.requiredVector(object, location, "gravity", sample.gravity)
                               || !reader.requiredVector(object, location, "userAcceleration", sample.user_acceleration)
                               || !reader.scalarMember(object, location, "sensorLocation", sample.sensor_location)
                               || !reader.scalarMember(object, location, "heading", sample.heading)) {
                               return false;
                           }
                           simdjson::dom::object field;
                           bool present = false;
                           sample.has_magnetic_field = 0;
                           sample.magnetic_field = wg_vector3{0, 0, 0};
                           sample.magnetic_field_accuracy = wg_json_scalar();
                           if (!reader.optionalObject(object, location, "magneticField", field, present)) { return false; }
                           if (!present) { return true; }
                           sample.has_magnetic_field = 1;
                           Location inner = location.inObject("magneticField");
                           return reader.vectorComponents(field, inner, sample.magnetic_field)
                               && reader.scalarMember(field, inner, "accuracy", sample.magnetic_field_accuracy);
                       });
}

extern "C" wg_decode_status wg_decode_device_motion_batch_fast(const uint8_t *data, size_t length,
                                                               wg_json_members *members,
                                                               wg_device_motion_sample *samples, size_t capacity,
                                                               size_t *count, wg_decode_problem *problem) {
    return scannedBatch(data, length, members, samples, capacity, count, problem,
                        [](auto &cursor, auto members, auto &sample) WG_INLINE_LAMBDA { return wg::scan::deviceMotionSample(cursor, members, sample); });
}

extern "C" wg_decode_status wg_decode_device_motion_batch(const uint8_t *data, size_t length,
                                                          wg_json_members *members,
                                                          wg_device_motion_sample *samples, size_t capacity,
                                                          size_t *count, wg_decode_problem *problem) {
    return fastThenDom(wg_decode_device_motion_batch_fast, wg_decode_device_motion_batch_dom, data, length, members, samples,
                       capacity, count, problem);
}
