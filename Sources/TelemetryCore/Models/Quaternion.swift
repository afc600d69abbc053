#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// A quaternion `x·i + y·j + z·k + w` (w is the scalar part), as Core Motion's `CMQuaternion`.
///
/// An attitude is a unit quaternion `q` that takes vectors from the device frame to the
/// reference frame: `v_reference = q ⊗ v_device ⊗ q⁻¹` (see ``rotate(_:)``). With the
/// identity attitude the device lies flat, screen up, and gravity in the device frame is
/// `(0, 0, −1)` g. Products follow Hamilton's convention (`i·j = k`).
/// Yaw, pitch and roll: see ``EulerAngles``.
public struct Quaternion: Sendable, Equatable, Hashable, Codable {
    /// Vector part, i component (unitless).
    public var x: Double
    /// Vector part, j component (unitless).
    public var y: Double
    /// Vector part, k component (unitless).
    public var z: Double
    /// Scalar part (unitless).
    public var w: Double

    /// Creates a quaternion from its components; `w` is the scalar part.
    public init(x: Double, y: Double, z: Double, w: Double) {
        self.x = x
        self.y = y
        self.z = z
        self.w = w
    }

    /// The identity rotation `(0, 0, 0, 1)`.
    public static let identity = Quaternion(x: 0, y: 0, z: 0, w: 1)

    /// The rotation by `angle` about `axis` (right-hand rule).
    /// - Parameters:
    ///   - axis: rotation axis; it is normalized here and must not be zero.
    ///   - angle: rotation angle in radians.
    public init(axis: Vector3, angle: Double) {
        let unitAxis = axis.normalized
        let halfAngle = angle / 2
        let sine = sin(halfAngle)
        self.init(x: unitAxis.x * sine, y: unitAxis.y * sine, z: unitAxis.z * sine, w: cos(halfAngle))
    }

    /// The vector part `(x, y, z)`.
    public var vector: Vector3 { Vector3(x: x, y: y, z: z) }

    /// The Euclidean norm √(x² + y² + z² + w²); 1 for an attitude.
    public var norm: Double { (x * x + y * y + z * z + w * w).squareRoot() }

    /// The same quaternion scaled to norm 1 (the identity when the norm is 0).
    public var normalized: Quaternion {
        let length = norm
        guard length > 0 else { return .identity }
        let inverseLength = 1 / length
        return Quaternion(x: x * inverseLength, y: y * inverseLength, z: z * inverseLength, w: w * inverseLength)
    }

    /// The conjugate `(−x, −y, −z, w)`; for a unit quaternion it is the inverse rotation.
    public var conjugate: Quaternion { Quaternion(x: -x, y: -y, z: -z, w: w) }

    /// The multiplicative inverse `conjugate / norm²` (the identity when the norm is 0).
    public var inverse: Quaternion {
        let squaredNorm = x * x + y * y + z * z + w * w
        guard squaredNorm > 0 else { return .identity }
        let factor = 1 / squaredNorm
        return Quaternion(x: -x * factor, y: -y * factor, z: -z * factor, w: w * factor)
    }

    /// The Hamilton product `lhs ⊗ rhs`: rotating by `rhs` first, then by `lhs`.
    public static func * (lhs: Quaternion, rhs: Quaternion) -> Quaternion {
        Quaternion(
            x: lhs.w * rhs.x + lhs.x * rhs.w + lhs.y * rhs.z - lhs.z * rhs.y,
            y: lhs.w * rhs.y - lhs.x * rhs.z + lhs.y * rhs.w + lhs.z * rhs.x,
            z: lhs.w * rhs.z + lhs.x * rhs.y - lhs.y * rhs.x + lhs.z * rhs.w,
            w: lhs.w * rhs.w - lhs.x * rhs.x - lhs.y * rhs.y - lhs.z * rhs.z
        )
    }

    /// The Hamilton product `self ⊗ other`.
    public func multiplied(by other: Quaternion) -> Quaternion { self * other }

    /// The attitude change from `reference` to `self`: `reference⁻¹ ⊗ self`.
    ///
    /// This is Core Motion's `CMAttitude.multiply(byInverseOf:)` without the mutation: with a
    /// cached starting pose as `reference`, the result is the pose relative to it, and it is
    /// the identity when `self == reference`.
    /// - Parameter reference: the reference attitude (unit quaternion).
    public func multiplied(byInverseOf reference: Quaternion) -> Quaternion {
        reference.inverse * self
    }

    /// Rotates `vector` by this rotation: the vector part of `q ⊗ (v, 0) ⊗ q⁻¹`.
    ///
    /// For an attitude this maps a device-frame vector into the reference frame; use
    /// `conjugate.rotate(_:)` for the opposite direction. The quaternion must be a unit
    /// quaternion (the result is scaled by norm² otherwise).
    /// - Parameter vector: the vector to rotate, in any unit (kept).
    public func rotate(_ vector: Vector3) -> Vector3 {
        // v' = v + w·t + u × t with u = (x, y, z) and t = 2·(u × v).
        let axis = self.vector
        let twiceCross = axis.cross(vector) * 2
        return vector + twiceCross * w + axis.cross(twiceCross)
    }
}
