/// The head's attitude relative to a reference pose, as published on `gateway/{id}/headphone/pose`.
public struct HeadPose: Sendable, Equatable, Codable {
    /// The sample's timestamp, s since boot.
    public var timestamp: Double
    /// The reference sample's timestamp, s since boot.
    public var referenceTimestamp: Double
    /// `q_ref⁻¹ ⊗ q` (Core Motion's `multiply(byInverseOf:)`), normalized, with `w ≥ 0`.
    public var quaternion: Quaternion
    /// Yaw of ``quaternion`` in degrees, (−180, 180]; positive turns the head to the left
    /// (counter-clockwise seen from above).
    public var yaw: Double
    /// Pitch in degrees, [−90, 90]; positive raises the chin, negative lowers it.
    public var pitch: Double
    /// Roll in degrees, (−180, 180].
    public var roll: Double

    /// Creates a pose.
    public init(timestamp: Double, referenceTimestamp: Double, quaternion: Quaternion, yaw: Double, pitch: Double, roll: Double) {
        self.timestamp = timestamp
        self.referenceTimestamp = referenceTimestamp
        self.quaternion = quaternion
        self.yaw = yaw
        self.pitch = pitch
        self.roll = roll
    }

    /// The pose of `attitude` relative to `reference`: `q_rel = q_ref⁻¹ ⊗ q`, the attitude change
    /// from the reference (what `CMAttitude.multiply(byInverseOf:)` leaves in the receiver),
    /// with yaw, pitch and roll by the convention of ``EulerAngles``.
    /// - Parameters:
    ///   - attitude: the current attitude (unit quaternion; normalized here).
    ///   - reference: the reference attitude (unit quaternion; normalized here).
    ///   - timestamp: the current sample's timestamp.
    ///   - referenceTimestamp: the reference sample's timestamp.
    /// - Returns: the relative pose; `q` and `−q` are the same rotation, so the quaternion is
    ///   given with a non-negative scalar part.
    public static func relative(
        _ attitude: Quaternion, to reference: Quaternion, timestamp: Double, referenceTimestamp: Double
    ) -> HeadPose {
        var relative = attitude.normalized.multiplied(byInverseOf: reference.normalized).normalized
        if relative.w < 0 { relative = Quaternion(x: -relative.x, y: -relative.y, z: -relative.z, w: -relative.w) }
        let angles = relative.eulerAngles
        return HeadPose(
            timestamp: timestamp, referenceTimestamp: referenceTimestamp, quaternion: relative,
            yaw: degrees(angles.yaw), pitch: degrees(angles.pitch), roll: degrees(angles.roll))
    }

    /// Radians to degrees.
    static func degrees(_ radians: Double) -> Double { radians * 180 / Double.pi }
}
