/// One device-motion sample as a watch app holds it before sending: Core Motion's
/// `CMDeviceMotion` fields in the gateway's units (g, rad/s, µT, degrees; seconds since boot).
public struct MotionSample: Sendable, Equatable {
    /// `CMLogItem.timestamp`: seconds since the device booted.
    public var timestamp: Double
    /// The attitude quaternion (x, y, z, w; w is the scalar part).
    public var attitude: SIMD4<Float>
    /// Rotation rate, rad/s.
    public var rotationRate: SIMD3<Float>
    /// Gravity, g.
    public var gravity: SIMD3<Float>
    /// User acceleration, g.
    public var userAcceleration: SIMD3<Float>
    /// `CMDeviceMotion.SensorLocation`'s raw value: 0 the device, 1 left bud, 2 right bud.
    public var sensorLocation: Int
    /// Calibrated magnetic field (µT) and `CMMagneticFieldCalibrationAccuracy`'s raw value
    /// (-1 uncalibrated … 2 high), when the reference frame has one.
    public var magneticField: (field: SIMD3<Float>, accuracy: Int)?
    /// Heading in degrees; nil when not reported (send Core Motion's negative heading as nil).
    public var heading: Float?

    /// Creates a sample.
    public init(
        timestamp: Double, attitude: SIMD4<Float>, rotationRate: SIMD3<Float>, gravity: SIMD3<Float>, userAcceleration: SIMD3<Float>,
        sensorLocation: Int = 0, magneticField: (field: SIMD3<Float>, accuracy: Int)? = nil, heading: Float? = nil
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

    public static func == (lhs: MotionSample, rhs: MotionSample) -> Bool {
        lhs.timestamp == rhs.timestamp && lhs.attitude == rhs.attitude && lhs.rotationRate == rhs.rotationRate && lhs.gravity == rhs.gravity
            && lhs.userAcceleration == rhs.userAcceleration && lhs.sensorLocation == rhs.sensorLocation
            && lhs.magneticField?.field == rhs.magneticField?.field && lhs.magneticField?.accuracy == rhs.magneticField?.accuracy
            && lhs.heading == rhs.heading
    }
}
