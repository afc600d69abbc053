/// One sensor-fused motion sample, as Core Motion's `CMDeviceMotion`.
///
/// Used by `motion` (CMMotionManager, ≤ 100 Hz), `batched/device-motion`
/// (CMBatchedSensorManager, 200 Hz) and `headphone/motion` (CMHeadphoneMotionManager, ~25 Hz).
/// The accelerometer measures `gravity + userAcceleration`.
public struct DeviceMotion: Sendable, Equatable, Hashable {
    /// When the sample is valid, in seconds since the device booted (CMLogItem).
    public var timestamp: Double
    /// Orientation relative to the reference frame, a unit quaternion taking device vectors to
    /// the reference frame (see ``Quaternion``).
    public var attitude: Quaternion
    /// Bias-removed rotation rate in the device frame, rad/s.
    public var rotationRate: Vector3
    /// Gravity in the device frame, g; about unit length (`(0, 0, −1)` lying flat, screen up).
    public var gravity: Vector3
    /// Acceleration the user imparts, gravity removed, in the device frame, g.
    public var userAcceleration: Vector3
    /// Which sensor produced the sample (a bud for headphones).
    public var sensorLocation: SensorLocation
    /// Calibrated magnetic field in µT; `nil` when not reported (headphones, or a reference
    /// frame without magnetometer).
    public var magneticField: MagneticField?
    /// Heading in degrees, [0, 360), relative to the reference frame's X axis (north with a
    /// north-referenced frame); `nil` when not reported. Core Motion's negative "invalid"
    /// heading is represented as `nil`.
    public var heading: Double?

    /// Creates a device-motion sample.
    /// - Parameters:
    ///   - timestamp: seconds since boot.
    ///   - attitude: unit quaternion, device → reference frame.
    ///   - rotationRate: rad/s, device frame.
    ///   - gravity: g, device frame.
    ///   - userAcceleration: g, device frame.
    ///   - sensorLocation: the producing sensor; `.default` for the device itself.
    ///   - magneticField: calibrated field in µT, if reported.
    ///   - heading: degrees in [0, 360), if reported.
    public init(
        timestamp: Double,
        attitude: Quaternion,
        rotationRate: Vector3,
        gravity: Vector3,
        userAcceleration: Vector3,
        sensorLocation: SensorLocation = .default,
        magneticField: MagneticField? = nil,
        heading: Double? = nil
    ) {
        self.timestamp = timestamp
        self.attitude = attitude
        self.rotationRate = rotationRate
        self.gravity = gravity
        self.userAcceleration = userAcceleration
        self.sensorLocation = sensorLocation
        self.magneticField = magneticField
        self.heading = heading
    }

    /// What the accelerometer measures, `gravity + userAcceleration`, in g.
    public var totalAcceleration: Vector3 { gravity + userAcceleration }
}
