// What the JSON decoding micro-benchmarks share: the batched frames of a `wearable-sim generate
// --encoding json` file, a CPU clock, and simdjson's on-demand API called directly (the
// stand-alone loop the shim's decoders are compared with).
#ifndef WEARABLE_GATEWAY_BENCHMARK_FRAMES_HPP
#define WEARABLE_GATEWAY_BENCHMARK_FRAMES_HPP

#include <simdjson.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace bench {

inline double cpuMicroseconds() {
    timespec now;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return now.tv_sec * 1e6 + now.tv_nsec / 1e3;
}

inline uint32_t u32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | uint32_t(p[3]) << 24; }
inline uint16_t u16(const uint8_t *p) { return uint16_t(p[0] | p[1] << 8); }

struct Frame {
    bool accelerometer;
    simdjson::padded_string json;
};

/// The batched frames of a WGF1 file (Benchmarks/relay-ratio/loadgen.c reads the same format).
inline std::vector<Frame> readFrames(const char *path) {
    std::ifstream file(path, std::ios::binary);
    std::vector<uint8_t> blob((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    std::vector<Frame> frames;
    if (blob.size() < 12 || std::memcmp(blob.data(), "WGF1", 4) != 0) { return frames; }
    // WG_BENCH_STREAM=batched/accelerometer (or batched/device-motion) keeps one stream only.
    const char *only = std::getenv("WG_BENCH_STREAM");
    const uint8_t *p = blob.data() + 12;
    for (uint32_t i = 0, count = u32(blob.data() + 8); i < count; i++) {
        uint16_t streamLength = u16(p + 16), typeLength = u16(p + 18);
        uint32_t length = u32(p + 20);
        std::string stream(reinterpret_cast<const char *>(p + 24), streamLength);
        const uint8_t *payload = p + 24 + streamLength + typeLength;
        if ((stream == "batched/accelerometer" || stream == "batched/device-motion") && (only == nullptr || stream == only)) {
            frames.push_back({stream == "batched/accelerometer", simdjson::padded_string(reinterpret_cast<const char *>(payload), length)});
        }
        p = payload + length;
    }
    return frames;
}

/// Reads `frames.bin [rounds]` (20 rounds by default): 0, or the status to exit with.
inline int readArguments(int argc, char **argv, std::vector<Frame> &frames, int &rounds) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s frames.bin [rounds]\n", argv[0]);
        return 2;
    }
    frames = readFrames(argv[1]);
    rounds = argc > 2 ? std::atoi(argv[2]) : 20;
    if (frames.empty()) {
        std::fprintf(stderr, "no batched JSON frames in %s\n", argv[1]);
        return 1;
    }
    return 0;
}

/// Keeps the decoded values alive.
inline double sink = 0;

/// Every sample member the gateway reads, through simdjson's on-demand API called directly.
inline void onDemandDecode(simdjson::ondemand::parser &parser, const Frame &frame) {
    simdjson::ondemand::document document = parser.iterate(frame.json);
    for (simdjson::ondemand::object sample : document["samples"].get_array()) {
        sink += double(sample["timestamp"]);
        if (frame.accelerometer) {
            simdjson::ondemand::object a = sample["acceleration"];
            sink += double(a["x"]) + double(a["y"]) + double(a["z"]);
        } else {
            simdjson::ondemand::object q = sample["attitude"];
            sink += double(q["x"]) + double(q["y"]) + double(q["z"]) + double(q["w"]);
            for (const char *key : {"rotationRate", "gravity", "userAcceleration"}) {
                simdjson::ondemand::object v = sample[key];
                sink += double(v["x"]) + double(v["y"]) + double(v["z"]);
            }
            std::string_view location;
            if (!sample["sensorLocation"].get_string().get(location)) { sink += double(location.size()); }
        }
    }
}

/// simdjson's own conversion of a number value: the floor's number reader.
struct SimdjsonNumbers {
    static __attribute__((always_inline)) bool read(simdjson::ondemand::value value, double &number) { return !value.get_double().get(number); }
};

/// Reads `value` as a double with `Numbers` if it is a number (strings, booleans and null are skipped).
template <typename Numbers>
inline __attribute__((always_inline)) bool readIfNumber(simdjson::ondemand::value value) {
    simdjson::ondemand::json_type type;
    if (value.type().get(type)) { return false; }
    if (type != simdjson::ondemand::json_type::number) { return type != simdjson::ondemand::json_type::object && type != simdjson::ondemand::json_type::array; }
    double number = 0;
    if (!Numbers::read(value, number)) { return false; }
    sink += number;
    return true;
}

/// Reads a sample member: a number, or an object of numbers (a vector, a quaternion, the
/// magnetic field, whose `accuracy` string is skipped).
template <typename Numbers>
inline __attribute__((always_inline)) bool readMember(simdjson::ondemand::value value) {
    simdjson::ondemand::json_type type;
    if (value.type().get(type)) { return false; }
    if (type != simdjson::ondemand::json_type::object) { return readIfNumber<Numbers>(value); }
    simdjson::ondemand::object object;
    if (value.get_object().get(object)) { return false; }
    for (auto field : object) {
        simdjson::ondemand::value inner;
        if (field.value().get(inner) || !readIfNumber<Numbers>(inner)) { return false; }
    }
    return true;
}

/// The floor: parse the document and read every number of every sample (and the sequence) as a
/// double in document order, comparing no key: what simdjson's on-demand API needs to reach and
/// convert each number, with the walk written out for the batches' depth (no recursion, so
/// everything inlines as in the shim). `Numbers` converts each number: simdjson's `get_double`
/// for the floor, or another reader to compare with it.
template <typename Numbers = SimdjsonNumbers>
inline bool numbersOnly(simdjson::ondemand::parser &parser, const Frame &frame) {
    simdjson::ondemand::document document;
    simdjson::ondemand::object root;
    if (parser.iterate(frame.json).get(document) || document.get_object().get(root)) { return false; }
    for (auto field : root) {
        simdjson::ondemand::value value;
        simdjson::ondemand::json_type type;
        if (field.value().get(value) || value.type().get(type)) { return false; }
        if (type != simdjson::ondemand::json_type::array) {
            if (!readIfNumber<Numbers>(value)) { return false; }
            continue;
        }
        simdjson::ondemand::array samples;
        if (value.get_array().get(samples)) { return false; }
        for (auto element : samples) {
            simdjson::ondemand::object sample;
            if (element.get_object().get(sample)) { return false; }
            for (auto member : sample) {
                simdjson::ondemand::value inner;
                if (member.value().get(inner) || !readMember<Numbers>(inner)) { return false; }
            }
        }
    }
    return true;
}

} // namespace bench

#endif
