/// One historical accelerometer sample, as Core Motion's `CMRecordedAccelerometerData`
/// (CMSensorRecorder, 50 Hz).
public struct RecordedAccelerometerSample: Sendable, Equatable, Hashable {
    /// When the sample is valid, in seconds since the device booted (CMLogItem).
    public var timestamp: Double
    /// The same instant as wall-clock time, Unix epoch seconds.
    public var startDate: Double
    /// Measured acceleration in the device frame, g, gravity included.
    public var acceleration: Vector3

    /// Creates a recorded accelerometer sample.
    /// - Parameters:
    ///   - timestamp: seconds since boot.
    ///   - startDate: Unix epoch seconds.
    ///   - acceleration: g, device frame, gravity included.
    public init(timestamp: Double, startDate: Double, acceleration: Vector3) {
        self.timestamp = timestamp
        self.startDate = startDate
        self.acceleration = acceleration
    }
}
