/// Maps a device's boot-relative timestamps (CMLogItem `timestamp`, seconds since boot) to
/// wall-clock dates (Unix epoch seconds) by estimating when the device booted.
///
/// The contract gives altimeter samples only a boot-relative `timestamp`, while pedometer data,
/// pedometer events and workout frames carry wall-clock dates. No frame carries both, so the
/// boot epoch is estimated from the order of frames:
///
///     bootDate ≈ max over samples of (latest date seen before the sample − sample.timestamp)
///
/// A device publishes its frames in the order it produced them and the gateway receives one
/// device's frames in that order, so every date seen before a sample arrives is at most the
/// sample's true date. Each estimate is therefore a lower bound of the true boot epoch, and the
/// maximum converges to it from below: it is off by the shortest gap between a dated frame and
/// the next altimeter sample, which is below one update interval (2.5 s for live pedometer
/// updates) after a few updates and typically a small fraction of a second.
///
/// Limits: a device that publishes a sample later than a dated frame produced after it (its own
/// buffering) biases the estimate late by that delay, and the maximum never comes back down. A
/// reboot restarts the timestamps: call ``reset()`` when they go backwards.
public struct DeviceClockAnchor: Sendable, Equatable, Codable {
    /// The latest wall-clock date seen in the device's frames, Unix epoch seconds.
    public private(set) var latestDate: Double?
    /// The estimated boot epoch, Unix epoch seconds (nil until a timestamp followed a date).
    public private(set) var bootDate: Double?

    /// Creates an anchor that knows nothing yet.
    public init() {}

    /// Notes a wall-clock date from a frame of the device (pedometer data `endDate`, pedometer
    /// event `date`, workout `date`).
    /// - Parameter date: Unix epoch seconds.
    public mutating func observe(date: Double) {
        latestDate = max(latestDate ?? date, date)
    }

    /// Notes a boot-relative timestamp from a frame that just arrived and refines the estimate.
    /// - Parameter timestamp: seconds since boot.
    public mutating func observe(timestamp: Double) {
        guard let latestDate else { return }
        let estimate = latestDate - timestamp
        bootDate = max(bootDate ?? estimate, estimate)
    }

    /// The wall-clock date of a timestamp, with the current estimate.
    /// - Parameter timestamp: seconds since boot.
    /// - Returns: Unix epoch seconds, or nil without an estimate.
    public func date(ofTimestamp timestamp: Double) -> Double? {
        bootDate.map { $0 + timestamp }
    }

    /// The timestamp of a wall-clock date, with the current estimate.
    /// - Parameter date: Unix epoch seconds.
    /// - Returns: seconds since boot, or nil without an estimate.
    public func timestamp(ofDate date: Double) -> Double? {
        bootDate.map { date - $0 }
    }

    /// Forgets the boot epoch (the device rebooted); the latest date is kept.
    public mutating func reset() {
        bootDate = nil
    }
}
