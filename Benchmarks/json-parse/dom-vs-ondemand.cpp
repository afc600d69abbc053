// CPU time per batch of simdjson's DOM parser (what Sources/CSimdjson uses: runtime-selected
// kernel, whole document validated) against its on-demand API (kernel chosen at compile time:
// build with -mavx2 -mbmi -mpclmul -mlzcnt for Haswell), both extracting every sample member the
// gateway reads, on the batched frames of `wearable-sim generate --encoding json`.
// Command and figures: Benchmarks/results/performance-log.md ("JSON decoding: DOM or on-demand").
#include "frames.hpp"

#include <cstdio>
#include <cstdlib>

namespace {

using bench::Frame;
using bench::sink;

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

} // namespace

int main(int argc, char **argv) {
    std::vector<Frame> frames;
    int rounds = 0;
    if (int status = bench::readArguments(argc, argv, frames, rounds)) { return status; }
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
                double start = bench::cpuMicroseconds();
                domDecode(dom, frame);
                double middle = bench::cpuMicroseconds();
                bench::onDemandDecode(onDemand, frame);
                domTime += middle - start;
                onDemandTime += bench::cpuMicroseconds() - middle;
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
