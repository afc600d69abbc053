import Benchmark
import Foundation
import TelemetryCore

/// Decoding, checking and encoding of the 800 Hz / 200 Hz hot path, per frame.
///
/// CI-independent: run locally with `swift package --disable-sandbox benchmark` from
/// `Benchmarks/`. Throughput is reported per second of wall clock (one core: a benchmark
/// runs on one thread).
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .instructions],
        warmupIterations: 20,
        maxDuration: .seconds(3),
        maxIterations: 100_000)

    let accelerometer = Fixtures.accelerometerBatch
    let deviceMotion = Fixtures.deviceMotionBatch
    let motion = Fixtures.motionFrame

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

    Benchmark("decode device-motion batch (200 samples) simdjson") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(FrameDecoder.decodeJSON(deviceMotion, stream: .batchedDeviceMotion))
        }
    }

    Benchmark("process accelerometer frame (checks + decode + validate)") { benchmark in
        var processor = FrameProcessor()
        let frame = InboundFrame(topic: "wearables/watch-bench-1/batched/accelerometer", payload: accelerometer, receivedAt: 1_700_000_000)
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
}
