// CPU time per batch of the shim's batch decoders as the gateway links them (the object files
// SwiftPM builds for Sources/CSimdjson), on the batched frames of `wearable-sim generate
// --encoding json [--json-style …]`: the DOM path, the fast path (the one-pass scanner), the full
// decoder (fast path, DOM path if it declines), simdjson's on-demand API called directly,
// simdjson's on-demand API reading every number and nothing else (the floor of any decoder built on it), and the full decoder reading the text
// where it is (as the gateway does with received payloads) instead of copying it, interleaved in one process in
// rotating order, so that a busy machine slows all of them alike; and the floor's walk with the
// shim's own number reader (wg::fast::readDecimal) in place of simdjson's `get_double`.
// Command and current figures: docs/performance.md ("Decoding in isolation"); the on-demand era's
// figures: Benchmarks/results/performance-log.md ("JSON decoding: DOM or on-demand").
#include "CSimdjsonDecoding.h"
#include "DecimalReader.hpp"
#include "frames.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace {

using bench::Frame;

enum Variant { dom, fastPath, full, standAlone, numbersOnly, fullInPlace, numbersOnlyShimReader, variants };
const char *const names[variants] = {"shim DOM path", "shim fast path", "shim full decoder", "on-demand, stand-alone",
                                     "simdjson numbers only", "shim full, in place", "numbers only, shim reader"};

/// The shim's number reader, where the value stands (the walk skips the unconsumed value).
struct ShimNumbers {
    static __attribute__((always_inline)) bool read(simdjson::ondemand::value value, double &number) {
        return wg::fast::readDecimal(reinterpret_cast<const uint8_t *>(value.raw_json_token().data()), number) != nullptr;
    }
};

std::vector<wg_accelerometer_sample> accelerometerSamples(1 << 16);
std::vector<wg_device_motion_sample> deviceMotionSamples(1 << 16);
std::vector<uint8_t> strings(1 << 20);

/// One call of a shim decoder as FrameDecoder makes it (`sequence` requested); its status.
wg_decode_status decode(Variant variant, const Frame &frame) {
    wg_json_scalar sequence;
    wg_json_members members{"sequence\0", 1, &sequence, strings.data(), strings.size(), 0, 0};
    // In place: the padded_string has simdjson's padding after the text, as the transport's payload
    // arrays do (the gateway's FrameDecoder passes their capacity); otherwise the shim copies it.
    if (variant == fullInPlace) { members.input_readable = frame.json.size() + WG_JSON_READ_AHEAD; }
    wg_decode_problem problem;
    const uint8_t *data = reinterpret_cast<const uint8_t *>(frame.json.data());
    size_t length = frame.json.size(), count = 0;
    wg_decode_status status;
    if (frame.accelerometer) {
        auto decoder = variant == dom ? wg_decode_accelerometer_batch_dom
            : variant == fastPath     ? wg_decode_accelerometer_batch_fast
                                      : wg_decode_accelerometer_batch;
        status = decoder(data, length, &members, accelerometerSamples.data(), accelerometerSamples.size(), &count, &problem);
        bench::sink += accelerometerSamples[count / 2].acceleration.x;
    } else {
        auto decoder = variant == dom ? wg_decode_device_motion_batch_dom
            : variant == fastPath     ? wg_decode_device_motion_batch_fast
                                      : wg_decode_device_motion_batch;
        status = decoder(data, length, &members, deviceMotionSamples.data(), deviceMotionSamples.size(), &count, &problem);
        bench::sink += deviceMotionSamples[count / 2].gravity.x;
    }
    return status;
}

} // namespace

int main(int argc, char **argv) {
    std::vector<Frame> frames;
    simdjson::ondemand::parser parser;
    int rounds = 0;
    if (int status = bench::readArguments(argc, argv, frames, rounds)) { return status; }
    // A third argument runs only that variant (0-6, in the order of `names`): for instruction
    // counts under `valgrind --tool=callgrind`, taken at two round counts and subtracted.
    int only = argc > 3 ? std::atoi(argv[3]) : -1;
    size_t declined = 0;
    for (const Frame &frame : frames) {
        if (decode(full, frame) != WG_DECODE_OK) {
            std::fprintf(stderr, "a frame did not decode\n");
            return 1;
        }
        declined += decode(fastPath, frame) != WG_DECODE_OK;
        if (!bench::numbersOnly(parser, frame) || !bench::numbersOnly<ShimNumbers>(parser, frame)) {
            std::fprintf(stderr, "simdjson could not walk a frame\n");
            return 1;
        }
    }
    // The full decoder costs the DOM path's time plus the attempt on frames the fast path declines.
    std::printf("the fast path declined %zu of %zu frames\n", declined, frames.size());
    std::printf("per batch, median over %d rounds (min-max):\n", rounds);
    for (bool accelerometer : {true, false}) {
        size_t batches = std::count_if(frames.begin(), frames.end(), [&](const Frame &frame) { return frame.accelerometer == accelerometer; });
        if (batches == 0) { continue; }
        std::vector<double> perBatch[variants];
        for (int round = 0; round < rounds; round++) {
            for (int step = 0; step < variants; step++) {
                Variant variant = Variant((step + round) % variants);
                if (only >= 0 && variant != only) { continue; }
                double start = bench::cpuMicroseconds();
                for (const Frame &frame : frames) {
                    if (frame.accelerometer != accelerometer) { continue; }
                    if (variant == standAlone) {
                        bench::onDemandDecode(parser, frame);
                    } else if (variant == numbersOnly) {
                        bench::numbersOnly(parser, frame);
                    } else if (variant == numbersOnlyShimReader) {
                        bench::numbersOnly<ShimNumbers>(parser, frame);
                    } else {
                        decode(variant, frame);
                    }
                }
                perBatch[variant].push_back((bench::cpuMicroseconds() - start) / batches);
            }
        }
        for (int variant = 0; variant < variants; variant++) {
            std::vector<double> &times = perBatch[variant];
            if (times.empty()) { continue; }
            std::sort(times.begin(), times.end());
            std::printf("%-22s %-23s %4zu batches: %6.1f µs (%.1f-%.1f)\n", accelerometer ? "batched/accelerometer" : "batched/device-motion",
                        names[variant], batches, times[times.size() / 2], times.front(), times.back());
        }
    }
    return bench::sink == 0.123 ? 1 : 0;
}
