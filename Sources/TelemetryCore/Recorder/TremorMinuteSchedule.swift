/// Decides when a wall-clock minute of a device's recorded accelerometer data is complete, so
/// its tremor result is published once. Pure: the owner reports what was stored and the time.
///
/// A minute `[m, m + 60)` is complete when the newest stored sample of the device (its *high
/// water*) has reached the minute's end and either
/// - the high water is ``grace`` seconds past the minute's end (chunks arrive in order, about
///   3 s after recording; the grace lets a chunk that overtook another be followed by it), or
/// - no recorder chunk of the device has arrived for ``idleTimeout`` seconds of gateway time
///   (the recording stopped; its last minute should not wait for data that never comes).
///
/// Minutes are published in order and never twice: ``nextMinute`` only advances, and its value
/// is what the gateway persists so a restart resumes where it stopped. Data that arrives for a
/// minute already past is stored (and answered on request) but not re-analysed on its own.
public struct TremorMinuteSchedule: Sendable {
    /// Where a device stands.
    public struct DeviceState: Sendable, Equatable {
        /// The newest stored sample's wall-clock date, Unix epoch seconds.
        public var highWater: Double
        /// The first minute start not yet published, Unix epoch seconds (a multiple of 60).
        public var nextMinute: Double
        /// When (gateway time) the device's last chunk arrived.
        public var lastArrival: Double
    }

    /// Seconds past a minute's end the high water must reach before the minute is complete.
    public let grace: Double
    /// Seconds without chunks after which the minute holding the high water's end is complete.
    public let idleTimeout: Double
    /// How far before a minute's end the last sample may lie for the minute to count as reached
    /// (one 50 Hz sample period plus rounding).
    public static let endTolerance = 0.05
    private var devices: [DeviceID: DeviceState] = [:]

    /// Creates a schedule.
    /// - Parameters:
    ///   - grace: seconds past a minute's end, default 5.
    ///   - idleTimeout: seconds without chunks, default 30.
    public init(grace: Double = 5, idleTimeout: Double = 30) {
        self.grace = grace
        self.idleTimeout = idleTimeout
    }

    /// The start of the minute holding `date`.
    public static func minute(containing date: Double) -> Double { (date / 60).rounded(.down) * 60 }

    /// Whether the schedule knows the device (else the owner restores it from the store first).
    public func knows(_ device: DeviceID) -> Bool { devices[device] != nil }

    /// The state of a device, if known.
    public func state(of device: DeviceID) -> DeviceState? { devices[device] }

    /// Sets a device's state as persisted by an earlier run (or a fresh one).
    /// - Parameters:
    ///   - device: the device.
    ///   - highWater: the newest stored sample's date.
    ///   - nextMinute: the first minute not yet published.
    ///   - now: the gateway's time.
    public mutating func restore(_ device: DeviceID, highWater: Double, nextMinute: Double, now: Double) {
        devices[device] = DeviceState(highWater: highWater, nextMinute: nextMinute, lastArrival: now)
    }

    /// Records a stored chunk and returns the minutes that became complete.
    /// - Parameters:
    ///   - device: the device.
    ///   - oldest: the chunk's oldest sample date.
    ///   - newest: the chunk's newest sample date.
    ///   - receivedAt: when the chunk arrived (gateway time).
    /// - Returns: the complete minutes' starts `[first, end)` in steps of 60, or nil.
    public mutating func recorded(_ device: DeviceID, oldest: Double, newest: Double, receivedAt: Double) -> Range<Double>? {
        var state = devices[device] ?? DeviceState(highWater: newest, nextMinute: Self.minute(containing: oldest), lastArrival: receivedAt)
        state.highWater = max(state.highWater, newest)
        state.lastArrival = receivedAt
        devices[device] = state
        return due(device, idle: false)
    }

    /// Closes minutes of devices that stopped sending.
    /// - Parameter now: the gateway's time.
    /// - Returns: per device, the minutes that became complete.
    public mutating func tick(now: Double) -> [(DeviceID, Range<Double>)] {
        var result: [(DeviceID, Range<Double>)] = []
        for (device, state) in devices where now - state.lastArrival >= idleTimeout {
            if let minutes = due(device, idle: true) { result.append((device, minutes)) }
        }
        return result.sorted { $0.0.rawValue < $1.0.rawValue }
    }

    /// Forgets devices idle for longer than `age` seconds whose minutes are all published, so
    /// the schedule's memory stays bounded by the devices recording recently.
    public mutating func forgetIdle(now: Double, age: Double) {
        devices = devices.filter { _, state in
            now - state.lastArrival < age || state.highWater >= state.nextMinute + 60 - Self.endTolerance
        }
    }

    /// Advances the device past its complete minutes and returns them.
    private mutating func due(_ device: DeviceID, idle: Bool) -> Range<Double>? {
        guard var state = devices[device] else { return nil }
        // The first minute start whose end the high water has not reached (with the tolerance).
        let reached = Self.minute(containing: state.highWater + Self.endTolerance)
        let settled = idle ? reached : min(reached, Self.minute(containing: state.highWater - grace))
        guard settled > state.nextMinute else { return nil }
        let minutes = state.nextMinute..<settled
        state.nextMinute = settled
        devices[device] = state
        return minutes
    }
}
