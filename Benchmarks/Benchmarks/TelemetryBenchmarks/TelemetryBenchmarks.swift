import Benchmark
import Foundation
import TelemetryCore
import TelemetrySimulation

/// Decoding, checking and encoding of the 800 Hz / 200 Hz hot path, per frame.
///
/// CI-independent: run locally with `swift package --disable-sandbox benchmark` from
/// `Benchmarks/`. Every benchmark runs on one thread, so its throughput (measured iterations
/// per second of wall clock) is a per-core figure. One iteration is one frame, except for the
/// "1 s of one Apple Watch" benchmarks (one simulated second of every stream of one watch).
/// Figures and the exact commands: ../docs/performance.md.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .instructions],
        warmupIterations: 20,
        maxDuration: .seconds(3),
        maxIterations: 100_000)

    let accelerometer = Fixtures.accelerometerBatch
    let deviceMotion = Fixtures.deviceMotionBatch
    // A decoder that fails fast would look fast: check once, before anything is measured,
    // that every decoder reads the whole batch and the processor accepts the frames.
    Fixtures.checkDecodersAgree()

    // MARK: Decoder comparison (how the hot-path decoder was chosen)

    Benchmark("decode accelerometer batch (800 samples) simdjson") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(FrameDecoder.decodeJSON(accelerometer, stream: .batchedAccelerometer))
        }
    }

    Benchmark("decode accelerometer batch (800 samples) Foundation JSONDecoder baseline") { benchmark in
        let data = Data(accelerometer)
        let decoder = JSONDecoder()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try? decoder.decode(CodableAccelerometerBatch.self, from: data))
        }
    }

    Benchmark("decode accelerometer batch (800 samples) Foundation JSONSerialization baseline") { benchmark in
        let data = Data(accelerometer)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try? JSONSerialization.jsonObject(with: data))
        }
    }

    Benchmark("decode device-motion batch (200 samples) simdjson") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(FrameDecoder.decodeJSON(deviceMotion, stream: .batchedDeviceMotion))
        }
    }

    Benchmark("decode device-motion batch (200 samples) Foundation JSONDecoder baseline") { benchmark in
        let data = Data(deviceMotion)
        let decoder = JSONDecoder()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try? decoder.decode(CodableDeviceMotionBatch.self, from: data))
        }
    }

    // MARK: What devices send: (a) the simulator's tidy JSON is above; (b) precise and (c)
    // reordered JSON, (d) protobuf (docs/performance.md, "Inputs like devices send")

    let devicePayloads: [(name: String, stream: InboundStream)] = [
        ("accelerometer batch (800 samples)", .batchedAccelerometer), ("device-motion batch (200 samples)", .batchedDeviceMotion),
    ]
    for (name, stream) in devicePayloads {
        for style in [JSONStyle.precise, .reordered] {
            let payload = Fixtures.payload(stream.rawValue, style: style)
            precondition((try? FrameDecoder.decodeJSON(payload, stream: stream).get())?.batchTimestamps != nil, "\(style) \(name) decodes")
            Benchmark("decode \(name) simdjson, \(style.rawValue) JSON") { benchmark in
                for _ in benchmark.scaledIterations {
                    blackHole(FrameDecoder.decodeJSON(payload, stream: stream))
                }
            }
        }
        let protobuf = Fixtures.protobufPayload(stream.rawValue)
        Benchmark("decode \(name) protobuf") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(ProtobufFrameDecoder.decode(protobuf, stream: stream))
            }
        }
    }

    // MARK: Validation of a decoded batch (docs/performance.md, "Validation in one pass")

    let validatedBatches: [(name: String, frame: DecodedFrame)] = [
        ("accelerometer batch (800 samples)", .batchedAccelerometer(Fixtures.decodedAccelerometerBatch)),
        ("device-motion batch (200 samples)", .batchedDeviceMotion(Fixtures.decodedDeviceMotionBatch)),
    ]
    for (name, frame) in validatedBatches {
        precondition(FrameValidator.validate(frame) == nil, "the simulated \(name) is valid")
        Benchmark("validate \(name)") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(FrameValidator.validate(frame))
            }
        }
    }

    // MARK: The whole per-frame path of a worker

    // `FrameProcessor.process` on consecutive frames of one watch (topic, size, content type,
    // decode, validate, sequence, derivations; no access policy): only the named frame of each
    // simulated second is measured, the others are processed unmeasured so the derivations see
    // the traffic as in the gateway (see `Replay`).
    func processOneFrame(of stream: String, _ benchmark: Benchmark, _ replay: Replay) {
        var measured = false
        for frame in replay.nextSecond() {
            if !measured && frame.topic.hasSuffix(stream) {
                measured = true
                benchmark.startMeasurement()
                blackHole(replay.process(frame))
                benchmark.stopMeasurement()
            } else {
                blackHole(replay.process(frame))
            }
        }
    }

    let accelerometerReplay = Replay()
    Benchmark("process accelerometer frame (800 samples, in a replayed watch stream)") { benchmark in
        processOneFrame(of: "/batched/accelerometer", benchmark, accelerometerReplay)
    }

    let deviceMotionReplay = Replay()
    Benchmark("process device-motion frame (200 samples, in a replayed watch stream)") { benchmark in
        processOneFrame(of: "/batched/device-motion", benchmark, deviceMotionReplay)
    }

    // The same with the batches in protobuf (corpus (d)): decoding is a smaller share there, so
    // validation, derivation and the model building show.
    let protobufAccelerometerReplay = Replay(encoding: .protobuf)
    Benchmark("process accelerometer frame (800 samples, in a replayed watch stream) protobuf") { benchmark in
        processOneFrame(of: "/batched/accelerometer", benchmark, protobufAccelerometerReplay)
    }

    let protobufDeviceMotionReplay = Replay(encoding: .protobuf)
    Benchmark("process device-motion frame (200 samples, in a replayed watch stream) protobuf") { benchmark in
        processOneFrame(of: "/batched/device-motion", benchmark, protobufDeviceMotionReplay)
    }

    let secondReplay = Replay()
    Benchmark("process 1 s of one Apple Watch Series 9 (every stream, replayed)") { benchmark in
        let second = secondReplay.nextSecond()
        benchmark.startMeasurement()
        for frame in second {
            blackHole(secondReplay.process(frame))
        }
    }

    let motionReplay = Replay()
    Benchmark("process motion frame (10 samples, in a replayed watch stream)") { benchmark in
        processOneFrame(of: "/motion", benchmark, motionReplay)
    }

    // MARK: The publishing side (simulator and contract JSON encoding)

    Benchmark("encode accelerometer batch (800 samples) FrameEncoder") { benchmark in
        let batch = Fixtures.decodedAccelerometerBatch
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(FrameEncoder.encode(batch))
        }
    }

    Benchmark("encode device-motion batch (200 samples) FrameEncoder") { benchmark in
        let batch = Fixtures.decodedDeviceMotionBatch
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(FrameEncoder.encode(batch))
        }
    }

    // Steady state: each iteration generates the next simulated second (one 800-sample and
    // one 200-sample batch, plus the watch's small frames), encoded as contract JSON.
    Benchmark("simulate 1 s of one Apple Watch Series 9 (every stream, encoded)") { benchmark in
        var generator = TrafficGenerator(
            seed: 7, devices: [.appleWatchSeries9(id: "watch-bench-1", activity: .baseball)], startDate: 1_700_000_000)
        blackHole(generator.advance(to: 2))
        for _ in benchmark.scaledIterations {
            blackHole(generator.advance(by: 1))
        }
    }
}
