/// Core Motion's Euler angles (`CMAttitude.yaw`, `.pitch`, `.roll`), in radians.
///
/// Convention (the order of Core Motion's documentation: yaw about Z, perpendicular to the
/// screen; pitch about X, the lateral axis; roll about Y, the longitudinal axis): the attitude
/// is the intrinsic Z-X′-Y″ rotation
///
///     q = qz(yaw) ⊗ qx(pitch) ⊗ qy(roll)
///
/// that is, the rotation matrix R = Rz(yaw) · Rx(pitch) · Ry(roll) taking device vectors to the
/// reference frame. From R (row r, column c written Rrc):
///
///     pitch = asin(R32)         = asin(2(yz + wx))              in [−π/2, π/2]
///     roll  = atan2(−R31, R33)  = atan2(2(wy − xz), 1 − 2(x² + y²)) in (−π, π]
///     yaw   = atan2(−R12, R22)  = atan2(2(wz − xy), 1 − 2(x² + z²)) in (−π, π]
///
/// At gimbal lock (|R32| ≥ 1 − 1e-9, pitch = ±π/2) roll is reported as 0 and yaw as
/// atan2(R21, R11) = atan2(2(xy + wz), 1 − 2(y² + z²)).
/// Positive pitch raises the top edge (gravity's y component becomes negative); positive
/// roll lowers the right edge; positive yaw turns the device counter-clockwise seen from above.
public struct EulerAngles: Sendable, Equatable, Hashable {
    /// Rotation about the reference Z axis (vertical), radians in (−π, π].
    public var yaw: Double
    /// Rotation about the device X axis (lateral), radians in [−π/2, π/2].
    public var pitch: Double
    /// Rotation about the device Y axis (longitudinal), radians in (−π, π].
    public var roll: Double

    /// Creates Euler angles in radians.
    public init(yaw: Double, pitch: Double, roll: Double) {
        self.yaw = yaw
        self.pitch = pitch
        self.roll = roll
    }
}
