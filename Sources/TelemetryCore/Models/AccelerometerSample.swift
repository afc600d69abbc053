/// One raw accelerometer sample, as Core Motion's `CMAccelerometerData` (gravity included).
public struct AccelerometerSample: Sendable, Equatable, Hashable {
    /// When the sample is valid, in seconds since the device booted (CMLogItem).
    public var timestamp: Double
    /// Measured acceleration in the device frame, g, gravity included.
    public var acceleration: Vector3

    /// Creates an accelerometer sample.
    /// - Parameters:
    ///   - timestamp: seconds since boot.
    ///   - acceleration: g, device frame, gravity included.
    public init(timestamp: Double, acceleration: Vector3) {
        self.timestamp = timestamp
        self.acceleration = acceleration
    }
}
