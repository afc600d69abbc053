import TelemetryCore

/// Standard gravity, m/s² (1 g).
let standardGravity = 9.80665

/// Physical state of a device at one instant, noise-free.
struct KinematicState: Sendable {
    /// Device → reference frame, unit quaternion.
    var attitude: Quaternion
    /// Yaw of the attitude, rad (not wrapped).
    var yaw: Double
    /// Device frame, rad/s.
    var rotationRate: Vector3
    /// Device frame, g, unit length.
    var gravity: Vector3
    /// Device frame, g.
    var userAcceleration: Vector3
}
