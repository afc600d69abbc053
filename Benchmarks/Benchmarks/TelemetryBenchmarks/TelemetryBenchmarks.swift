import Benchmark
import Foundation
import TelemetryCore
import TelemetrySimulation

/// Decoding, checking and encoding of the 800 Hz / 200 Hz hot path, per frame.
///
/// CI-independent: run locally with `swift package --disable-sandbox benchmark` from
/// `Benchmarks/`. Every benchmark runs on one thread, so its throughput (iterations per second
/// of wall clock; one iteration = one frame) is a per-core figure. Figures and the exact
/// commands: ../docs/performance.md.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .instructions],
        warmupIterations: 20,
        maxDuration: .seconds(3),
        maxIterations: 100_000)

    let accelerometer = Fixtures.accelerometerBatch
    let deviceMotion = Fixtures.deviceMotionBatch
    let motion = Fixtures.motionFrame
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
        for _ in benchmark.scaledIterations {
            blackHole(try? decoder.decode(CodableAccelerometerBatch.self, from: data))
        }
    }

    Benchmark("decode accelerometer batch (800 samples) Foundation JSONSerialization baseline") { benchmark in
        let data = Data(accelerometer)
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
        for _ in benchmark.scaledIterations {
            blackHole(try? decoder.decode(CodableDeviceMotionBatch.self, from: data))
        }
    }

    // MARK: The whole per-frame path of a worker

    Benchmark("process accelerometer frame (checks + decode + validate)") { benchmark in
        var processor = FrameProcessor()
        let frame = InboundFrame(topic: "wearables/watch-bench-1/batched/accelerometer", payload: accelerometer, receivedAt: 1_700_000_000)
        for _ in benchmark.scaledIterations {
            blackHole(processor.process(frame))
        }
    }

    Benchmark("process device-motion frame (checks + decode + validate)") { benchmark in
        var processor = FrameProcessor()
        let frame = InboundFrame(topic: "wearables/watch-bench-1/batched/device-motion", payload: deviceMotion, receivedAt: 1_700_000_000)
        for _ in benchmark.scaledIterations {
            blackHole(processor.process(frame))
        }
    }

    Benchmark("process motion frame (10 samples)") { benchmark in
        var processor = FrameProcessor()
        let frame = InboundFrame(topic: "wearables/watch-bench-1/motion", payload: motion, receivedAt: 1_700_000_000)
        for _ in benchmark.scaledIterations {
            blackHole(processor.process(frame))
        }
    }

    // MARK: The publishing side (simulator and contract JSON encoding)

    Benchmark("encode accelerometer batch (800 samples) FrameEncoder") { benchmark in
        let batch = Fixtures.decodedAccelerometerBatch
        for _ in benchmark.scaledIterations {
            blackHole(FrameEncoder.encode(batch))
        }
    }

    Benchmark("encode device-motion batch (200 samples) FrameEncoder") { benchmark in
        let batch = Fixtures.decodedDeviceMotionBatch
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
