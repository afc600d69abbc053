#ifndef WEARABLE_GATEWAY_CSIMDJSON_DECODING_H
#define WEARABLE_GATEWAY_CSIMDJSON_DECODING_H

// Frame decoders for the wire contract's JSON payloads (simdjson DOM, runtime CPU dispatch; the
// two batched streams first try a one-pass scanner of their known shapes, which reads members in
// any order, and fall back to the DOM path for anything else, so results and problems are the
// DOM path's).
//
// One call decodes one frame: the document is parsed once, the requested top-level members are
// reported as tagged scalars (`wg_json_members`), and the high-rate decoders also copy every
// element of `"samples"` into a caller buffer of flat structs. The C side only checks JSON shape
// (required members present, objects are objects, numbers are numbers); enum names, integer
// conversions and physical bounds are the Swift side's job.
//
// Nothing here throws or allocates per sample: C++ exceptions are caught at the boundary and
// become WG_DECODE_INTERNAL. Every function is thread-safe: each thread keeps its own parser and
// padded copy of the input, reused across calls (so calls allocate only while they warm up).

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The outcome of a decode call. On anything but WG_DECODE_OK, `wg_decode_problem` says where and why.
typedef enum wg_decode_status {
    WG_DECODE_OK = 0,
    WG_DECODE_NOT_OBJECT = 1,   ///< empty, not well-formed JSON, or the top-level value is not an object
    WG_DECODE_MISSING = 2,      ///< a required member is absent
    WG_DECODE_WRONG_TYPE = 3,   ///< a member has another JSON type than the contract's
    WG_DECODE_CAPACITY = 4,     ///< a caller buffer is too small (a caller bug: size them as documented)
    WG_DECODE_INTERNAL = 5,     ///< an unexpected C++ exception, such as running out of memory
    WG_DECODE_DECLINED = 6,     ///< only from the `*_fast` fast paths: not read, use the full decoder
} wg_decode_status;

/// Sizes of the text fields of `wg_decode_problem`, NUL included; longer text is cut.
enum {
    WG_DECODE_FIELD_CAPACITY = 96,
    WG_DECODE_MESSAGE_CAPACITY = 192,
};

/// Where and why a decode failed, as NUL-terminated UTF-8 written into the caller's struct.
typedef struct wg_decode_problem {
    /// The member's path, e.g. `samples[412].acceleration.z`; empty when the whole payload is at fault.
    char field[WG_DECODE_FIELD_CAPACITY];
    /// What is wrong, e.g. `not a number`, `missing`, `payload is not a JSON object: empty payload`.
    char message[WG_DECODE_MESSAGE_CAPACITY];
} wg_decode_problem;

/// The JSON type of a reported member.
typedef enum wg_json_type {
    WG_JSON_ABSENT = 0,   ///< no such member
    WG_JSON_NULL = 1,
    WG_JSON_BOOL = 2,
    WG_JSON_INT64 = 3,    ///< an integer that fits int64_t
    WG_JSON_UINT64 = 4,   ///< an integer above INT64_MAX that fits uint64_t
    WG_JSON_DOUBLE = 5,   ///< any other number
    WG_JSON_STRING = 6,
    WG_JSON_ARRAY = 7,
    WG_JSON_OBJECT = 8,
} wg_json_type;

/// One member's JSON type and value. Only the fields of its type are set; the three number
/// types also set `number`. A string's unescaped UTF-8 bytes are at
/// `strings[string_offset ..< string_offset + string_length]` of the call's `wg_json_members`.
typedef struct wg_json_scalar {
    wg_json_type type;
    uint8_t boolean;
    int64_t int64;
    uint64_t uint64;
    double number;
    size_t string_offset;
    size_t string_length;
} wg_json_scalar;

/// The top-level members a call reports, and where it puts strings.
typedef struct wg_json_members {
    /// `count` keys, each terminated by NUL, back to back: "sequence\0identifier\0".
    const char *keys;
    size_t count;
    /// `count` results, in the order of `keys` (with duplicate keys the first member wins).
    wg_json_scalar *values;
    /// Where unescaped string values are copied (top-level members and per-sample strings).
    /// A string is never longer than its JSON text, so `length` bytes of the payload always suffice.
    uint8_t *strings;
    size_t string_capacity;
    /// Set by the call: the bytes of `strings` in use.
    size_t string_length;
    /// Bytes readable from the call's `data` on, its `length` included (0: only `length`). With
    /// at least `length + WG_JSON_READ_AHEAD` the payload is parsed where it is; otherwise it is
    /// first copied into a padded buffer, because simdjson reads up to that many bytes past the
    /// end (what they hold does not matter).
    size_t input_readable;
} wg_json_members;

/// The bytes simdjson may read past the end of a payload (its SIMDJSON_PADDING).
#define WG_JSON_READ_AHEAD 64

/// A vector in g, rad/s or µT, as the contract's `{"x","y","z"}`.
typedef struct wg_vector3 {
    double x, y, z;
} wg_vector3;

/// A quaternion, as the contract's `{"x","y","z","w"}` (w scalar).
typedef struct wg_quaternion {
    double x, y, z, w;
} wg_quaternion;

/// One `batched/accelerometer` sample: seconds since boot; g.
typedef struct wg_accelerometer_sample {
    double timestamp;
    wg_vector3 acceleration;
} wg_accelerometer_sample;

/// One `recorder/accelerometer` sample: seconds since boot; Unix epoch seconds; g.
typedef struct wg_recorded_accelerometer_sample {
    double timestamp;
    double start_date;
    wg_vector3 acceleration;
} wg_recorded_accelerometer_sample;

/// One DeviceMotion sample (`motion`, `headphone/motion`, `batched/device-motion`). The optional
/// and enumerated members are reported as scalars for the caller to interpret.
typedef struct wg_device_motion_sample {
    double timestamp;
    wg_quaternion attitude;
    wg_vector3 rotation_rate;
    wg_vector3 gravity;
    wg_vector3 user_acceleration;
    /// Set when `magneticField` is an object; then `magnetic_field` holds its x, y, z (µT).
    uint8_t has_magnetic_field;
    wg_vector3 magnetic_field;
    /// `magneticField.accuracy` (WG_JSON_ABSENT without a magnetic field object).
    wg_json_scalar magnetic_field_accuracy;
    wg_json_scalar sensor_location;
    wg_json_scalar heading;
} wg_device_motion_sample;

/// Lower bounds of the JSON text of one valid sample (required members, shortest numbers, no
/// spaces), each followed by a comma. A payload of `length` bytes holds at most
/// `length / MIN_JSON_BYTES + 1` valid samples, so a buffer of that capacity never overflows: the
/// decoders stop at the first invalid sample.
enum {
    WG_ACCELEROMETER_SAMPLE_MIN_JSON_BYTES = 48,
    WG_RECORDED_ACCELEROMETER_SAMPLE_MIN_JSON_BYTES = 60,
    WG_DEVICE_MOTION_SAMPLE_MIN_JSON_BYTES = 150,
};

/// Decodes the top-level object of `data[0 ..< length]` and reports `members`.
wg_decode_status wg_decode_members(const uint8_t *data, size_t length, wg_json_members *members,
                                   wg_decode_problem *problem);

/// Decodes `{"samples":[{"timestamp","acceleration":{x,y,z}}…], …}` into `samples[0 ..< *count]`
/// and reports `members`. Unknown members are ignored; an empty array decodes to 0 samples.
wg_decode_status wg_decode_accelerometer_batch(const uint8_t *data, size_t length, wg_json_members *members,
                                               wg_accelerometer_sample *samples, size_t capacity, size_t *count,
                                               wg_decode_problem *problem);

/// The two halves of `wg_decode_accelerometer_batch`, exported for the differential tests. The
/// fast path (one pass over the bytes) reads the contract's members in any order and any
/// whitespace (nothing unknown or repeated, no escapes or bytes above 0x7F, numbers it reads
/// exactly as the DOM parser does) and returns WG_DECODE_DECLINED for anything else, malformed
/// input included; the DOM path reads and reports everything. The full decoder runs the first, then,
/// if it declined, the second.
wg_decode_status wg_decode_accelerometer_batch_fast(const uint8_t *data, size_t length, wg_json_members *members,
                                                    wg_accelerometer_sample *samples, size_t capacity,
                                                    size_t *count, wg_decode_problem *problem);
wg_decode_status wg_decode_accelerometer_batch_dom(const uint8_t *data, size_t length, wg_json_members *members,
                                                   wg_accelerometer_sample *samples, size_t capacity, size_t *count,
                                                   wg_decode_problem *problem);

/// Decodes `{"samples":[{"timestamp","startDate","acceleration":{x,y,z}}…], …}` (`recorder/accelerometer`).
wg_decode_status wg_decode_recorded_accelerometer_batch(const uint8_t *data, size_t length,
                                                        wg_json_members *members,
                                                        wg_recorded_accelerometer_sample *samples,
                                                        size_t capacity, size_t *count,
                                                        wg_decode_problem *problem);

/// Decodes `{"samples":[DeviceMotion…], …}`: `timestamp`, `attitude` {x,y,z,w}, `rotationRate`,
/// `gravity`, `userAcceleration` {x,y,z} required; `magneticField` {x,y,z,accuracy} optional (null
/// is absent); `sensorLocation` and `heading` reported as scalars.
wg_decode_status wg_decode_device_motion_batch(const uint8_t *data, size_t length, wg_json_members *members,
                                               wg_device_motion_sample *samples, size_t capacity, size_t *count,
                                               wg_decode_problem *problem);

/// The two halves of `wg_decode_device_motion_batch` (as for the accelerometer above; the fast
/// path takes the five required members and the optional `sensorLocation`, `magneticField` and
/// `heading` in any order).
wg_decode_status wg_decode_device_motion_batch_fast(const uint8_t *data, size_t length, wg_json_members *members,
                                                    wg_device_motion_sample *samples, size_t capacity,
                                                    size_t *count, wg_decode_problem *problem);
wg_decode_status wg_decode_device_motion_batch_dom(const uint8_t *data, size_t length, wg_json_members *members,
                                                   wg_device_motion_sample *samples, size_t capacity, size_t *count,
                                                   wg_decode_problem *problem);

#ifdef __cplusplus
}
#endif

#endif
