#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

extension Quaternion {
    /// The attitude with these Euler angles: `qz(yaw) ⊗ qx(pitch) ⊗ qy(roll)`
    /// (see ``EulerAngles`` for the convention).
    /// - Parameters:
    ///   - yaw: rotation about Z in radians.
    ///   - pitch: rotation about X in radians.
    ///   - roll: rotation about Y in radians.
    public init(yaw: Double, pitch: Double, roll: Double) {
        let (sinYaw, cosYaw) = (sin(yaw / 2), cos(yaw / 2))
        let (sinPitch, cosPitch) = (sin(pitch / 2), cos(pitch / 2))
        let (sinRoll, cosRoll) = (sin(roll / 2), cos(roll / 2))
        // Expanded (0,0,sy,cy) ⊗ (sp,0,0,cp) ⊗ (0,sr,0,cr).
        self.init(
            x: cosYaw * sinPitch * cosRoll - sinYaw * cosPitch * sinRoll,
            y: cosYaw * cosPitch * sinRoll + sinYaw * sinPitch * cosRoll,
            z: sinYaw * cosPitch * cosRoll + cosYaw * sinPitch * sinRoll,
            w: cosYaw * cosPitch * cosRoll - sinYaw * sinPitch * sinRoll
        )
    }

    /// The attitude with these Euler angles (see ``EulerAngles``).
    public init(_ angles: EulerAngles) {
        self.init(yaw: angles.yaw, pitch: angles.pitch, roll: angles.roll)
    }

    /// Yaw, pitch and roll in radians, as `CMAttitude` reports them (see ``EulerAngles``).
    /// The quaternion should be a unit quaternion.
    public var eulerAngles: EulerAngles {
        let sinPitch = 2 * (y * z + w * x)
        if abs(sinPitch) >= 1 - 1e-9 {
            let pitch = sinPitch > 0 ? Double.pi / 2 : -Double.pi / 2
            let yaw = atan2(2 * (x * y + w * z), 1 - 2 * (y * y + z * z))
            return EulerAngles(yaw: yaw, pitch: pitch, roll: 0)
        }
        return EulerAngles(
            yaw: atan2(2 * (w * z - x * y), 1 - 2 * (x * x + z * z)),
            pitch: asin(sinPitch),
            roll: atan2(2 * (w * y - x * z), 1 - 2 * (x * x + y * y))
        )
    }

    /// Yaw in radians, (−π, π]: rotation about the reference Z axis (see ``EulerAngles``).
    public var yaw: Double { eulerAngles.yaw }
    /// Pitch in radians, [−π/2, π/2]: rotation about the device X axis (see ``EulerAngles``).
    public var pitch: Double { eulerAngles.pitch }
    /// Roll in radians, (−π, π]: rotation about the device Y axis (see ``EulerAngles``).
    public var roll: Double { eulerAngles.roll }
}
