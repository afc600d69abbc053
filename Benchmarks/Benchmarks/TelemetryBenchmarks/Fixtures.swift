import TelemetryCore
import TelemetrySimulation

/// Realistic payloads from the seeded simulator, made once.
enum Fixtures {
    /// One second of traffic of an Apple Watch Series 9 playing baseball: the 800-sample
    /// accelerometer batch and the 200-sample device-motion batch, as JSON.
    static let frames: [SimulatedFrame] = {
        var generator = TrafficGenerator(
            seed: 7, devices: [.appleWatchSeries9(id: "watch-bench-1", activity: .baseball)], startDate: 1_700_000_000)
        return generator.advance(to: 2)
    }()

    static func payload(_ stream: String) -> [UInt8] {
        frames.last { $0.stream == stream }!.payload
    }

    static let accelerometerBatch = payload("batched/accelerometer")
    static let deviceMotionBatch = payload("batched/device-motion")
    static let motionFrame = payload("motion")
}
