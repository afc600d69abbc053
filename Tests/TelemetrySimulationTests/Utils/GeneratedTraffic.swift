import TelemetryCore
import TelemetrySimulation

/// Traffic generated once and shared by the tests that only read it.
enum GeneratedTraffic {
    static let seed: UInt64 = 2024
    static let startDate = 1_700_000_000.0
    /// Long enough for a dive to start (10 s) and a pedometer pause and resume (20 s, 26 s).
    static let duration = 31.0

    /// `SimulatedFleet.mixed(count: 5)`: watch-ultra-1, watch-s9-1 (tennis), buds-1,
    /// watch-s9-2 (baseball), phone-1.
    static let devices = SimulatedFleet.mixed(count: 5)

    static let frames: [SimulatedFrame] = {
        var generator = TrafficGenerator(seed: seed, devices: devices, startDate: startDate)
        return generator.advance(to: duration)
    }()

    /// The frames of one device and stream, in order.
    static func frames(of deviceId: String, _ stream: String) -> [SimulatedFrame] {
        frames.filter { $0.deviceId == deviceId && $0.stream == stream }
    }
}
