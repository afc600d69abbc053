// CPU time per batch of simdjson's DOM parser (what Sources/CSimdjson uses: runtime-selected
// kernel, whole document validated) against its on-demand API (kernel chosen at compile time:
// build with -mavx2 -mbmi -mpclmul -mlzcnt for Haswell), both extracting every sample member the
// gateway reads, on the batched frames of `wearable-sim generate --encoding json`.
// Command and figures: docs/performance.md ("JSON decoding: DOM or on-demand").
#include <simdjson.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

double cpuMicroseconds() {
    timespec now;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return now.tv_sec * 1e6 + now.tv_nsec / 1e3;
}

uint32_t u32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | uint32_t(p[3]) << 24; }
uint16_t u16(const uint8_t *p) { return uint16_t(p[0] | p[1] << 8); }

struct Frame {
    bool accelerometer;
    simdjson::padded_string json;
};

/// The batched frames of a WGF1 file (Benchmarks/relay-ratio/loadgen.c reads the same format).
std::vector<Frame> readFrames(const char *path) {
    std::ifstream file(path, std::ios::binary);
    std::vector<uint8_t> blob((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    std::vector<Frame> frames;
    if (blob.size() < 12 || std::memcmp(blob.data(), "WGF1", 4) != 0) { return frames; }
    const uint8_t *p = blob.data() + 12;
    for (uint32_t i = 0, count = u32(blob.data() + 8); i < count; i++) {
        uint16_t streamLength = u16(p + 16), typeLength = u16(p + 18);
        uint32_t length = u32(p + 20);
        std::string stream(reinterpret_cast<const char *>(p + 24), streamLength);
        const uint8_t *payload = p + 24 + streamLength + typeLength;
        if (stream == "batched/accelerometer" || stream == "batched/device-motion") {
            frames.push_back({stream == "batched/accelerometer", simdjson::padded_string(reinterpret_cast<const char *>(payload), length)});
        }
        p = payload + length;
    }
    return frames;
}

double sink = 0;

void domDecode(simdjson::dom::parser &parser, const Frame &frame) {
    simdjson::dom::element root = parser.parse(frame.json);
    for (simdjson::dom::object sample : root["samples"].get_array()) {
        sink += double(sample["timestamp"]);
        if (frame.accelerometer) {
            simdjson::dom::object a = sample["acceleration"];
            sink += double(a["x"]) + double(a["y"]) + double(a["z"]);
        } else {
            simdjson::dom::object q = sample["attitude"];
            sink += double(q["x"]) + double(q["y"]) + double(q["z"]) + double(q["w"]);
            for (const char *key : {"rotationRate", "gravity", "userAcceleration"}) {
                simdjson::dom::object v = sample[key];
                sink += double(v["x"]) + double(v["y"]) + double(v["z"]);
            }
            std::string_view location;
            if (!sample["sensorLocation"].get_string().get(location)) { sink += double(location.size()); }
        }
    }
}

void onDemandDecode(simdjson::ondemand::parser &parser, const Frame &frame) {
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

} // namespace

int main(int argc, char **argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s frames.bin [rounds]\n", argv[0]);
        return 2;
    }
    std::vector<Frame> frames = readFrames(argv[1]);
    int rounds = argc > 2 ? std::atoi(argv[2]) : 20;
    if (frames.empty()) {
        std::fprintf(stderr, "no batched JSON frames in %s\n", argv[1]);
        return 1;
    }
    std::printf("DOM kernel (run time): %s; on-demand kernel (compile time): %s\n",
                simdjson::get_active_implementation()->name().c_str(), SIMDJSON_STRINGIFY(SIMDJSON_BUILTIN_IMPLEMENTATION));
    simdjson::dom::parser dom;
    simdjson::ondemand::parser onDemand;
    for (bool accelerometer : {true, false}) {
        double domTime = 0, onDemandTime = 0;
        size_t batches = 0, bytes = 0;
        for (int round = 0; round < rounds; round++) {
            for (const Frame &frame : frames) {
                if (frame.accelerometer != accelerometer) { continue; }
                double start = cpuMicroseconds();
                domDecode(dom, frame);
                double middle = cpuMicroseconds();
                onDemandDecode(onDemand, frame);
                domTime += middle - start;
                onDemandTime += cpuMicroseconds() - middle;
                batches++;
                bytes += frame.json.size();
            }
        }
        std::printf("%-22s %6zu batches, %5.1f KB each: DOM %6.1f µs, on-demand %6.1f µs per batch\n",
                    accelerometer ? "batched/accelerometer" : "batched/device-motion", batches, bytes / 1024.0 / batches,
                    domTime / batches, onDemandTime / batches);
    }
    return sink == 0.123 ? 1 : 0;
}
