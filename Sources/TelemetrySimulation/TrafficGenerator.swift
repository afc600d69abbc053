import TelemetryCore

/// Seeded, repeatable traffic from a fleet of simulated wearables, for every inbound stream
/// of the wire contract.
///
/// The generator is a pure value: it reads no clock and does no I/O. It keeps a simulated
/// time that starts at 0; each ``advance(to:)`` returns, in time order, every frame due up to
/// the new time. The same seed, devices and start date always give byte-identical frames
/// (on a given platform's math library), however time is sliced into steps. A device's data
/// derives from the seed and its id, not from its position in the fleet. Wall-clock fields (`date`, `startDate`, `endDate`) are
/// `startDate` plus simulated time; `timestamp`s are seconds since each device's (simulated)
/// boot.
///
/// ```swift
/// var generator = TrafficGenerator(seed: 1, deviceCount: 3, startDate: 1_700_000_000)
/// while generator.currentTime < 10 {
///     for frame in generator.advance(by: 0.1) {
///         // sleep until start + frame.time, then publish frame.payload to frame.topic()
///     }
/// }
/// ```
///
/// Per watch: `hello` and `status` (retained) once, `authorization` and `workout` (running)
/// once, `batched/accelerometer` (800 samples) and `batched/device-motion` (200 samples) and
/// `recorder/accelerometer` (50 samples) once a second, `motion` 50 Hz in 10-sample frames,
/// `pedometer/data` and `altimeter` once a second, `pedometer/event` pause/resume every 30 s;
/// on an Ultra also `submersion/event` on each change, `submersion/measurement` at 3 Hz and
/// `submersion/temperature` at 3 Hz while submerged. Per headphones: `hello`, `status`,
/// `authorization`, `headphone/connection` (connected), `headphone/motion` 25 Hz in 5-sample
/// frames. Per phone: `hello`, `status`, `authorization`, `motion`, `pedometer/*`, `altimeter`.
/// Every non-retained frame carries `"sequence"`, 1, 2, 3, … per device and stream.
public struct TrafficGenerator: Sendable {
    /// The simulated devices, in the order used to break ties between simultaneous frames.
    public let devices: [SimulatedDevice]
    /// The seed everything random derives from.
    public let seed: UInt64
    /// Unix epoch seconds at simulated time 0.
    public let startDate: Double
    /// Simulated seconds covered so far: every frame with `time <= currentTime` was returned.
    public private(set) var currentTime: Double = 0
    private var simulators: [DeviceSimulator]

    /// Creates a generator for the given devices.
    /// - Parameters:
    ///   - seed: seeds all randomness (noise, phases, per-device constants).
    ///   - devices: the fleet; ids should be unique (a device's data derives from its id).
    ///   - startDate: Unix epoch seconds at simulated time 0 — pass the run's start time;
    ///     the generator never reads a clock.
    public init(seed: UInt64, devices: [SimulatedDevice], startDate: Double) {
        self.seed = seed
        self.devices = devices
        self.startDate = startDate
        simulators = devices.enumerated().map { index, device in
            DeviceSimulator(device: device, index: index, seed: seed, startDate: startDate)
        }
    }

    /// Creates a generator for ``SimulatedFleet/mixed(count:)``.
    /// - Parameters:
    ///   - seed: seeds all randomness.
    ///   - deviceCount: number of devices in the mixed fleet.
    ///   - startDate: Unix epoch seconds at simulated time 0.
    public init(seed: UInt64, deviceCount: Int, startDate: Double) {
        self.init(seed: seed, devices: SimulatedFleet.mixed(count: deviceCount), startDate: startDate)
    }

    /// Advances simulated time to `time` and returns the frames due since the last call, in
    /// time order (ties: device order, then each device's stream order). A `time` at or before
    /// ``currentTime`` returns nothing.
    /// - Parameter time: simulated seconds since the start.
    /// - Returns: frames with `previous currentTime < frame.time <= time` (plus those at 0 on
    ///   the first call).
    public mutating func advance(to time: Double) -> [SimulatedFrame] {
        guard time >= currentTime else { return [] }
        var pending: [PendingFrame] = []
        for index in simulators.indices {
            simulators[index].collectFrames(through: time, into: &pending)
        }
        currentTime = time
        pending.sort(by: PendingFrame.precedes)
        return pending.map(\.frame)
    }

    /// Advances simulated time by `step` seconds; see ``advance(to:)``.
    /// - Parameter step: simulated seconds, for example 0.1 for ten publishing rounds a second.
    public mutating func advance(by step: Double) -> [SimulatedFrame] {
        advance(to: currentTime + step)
    }
}
