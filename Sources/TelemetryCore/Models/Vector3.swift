/// A three-axis vector in a device's frame, as Core Motion's `CMAcceleration`,
/// `CMRotationRate` and `CMMagneticField`.
///
/// The unit depends on what the vector holds and is stated where it is used:
/// acceleration in g (1 g = 9.80665 m/s²), rotation rate in rad/s (right-hand rule about
/// each axis), magnetic field in µT.
public struct Vector3: Sendable, Equatable, Hashable {
    /// X component (device frame: toward the right edge / crown side).
    public var x: Double
    /// Y component (device frame: toward the top / 12 o'clock).
    public var y: Double
    /// Z component (device frame: out of the screen toward the viewer).
    public var z: Double

    /// Creates a vector from its components.
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// The zero vector.
    public static let zero = Vector3(x: 0, y: 0, z: 0)

    /// The Euclidean length √(x² + y² + z²), in the vector's unit.
    public var norm: Double { dot(self).squareRoot() }

    /// The dot product, in the product of both vectors' units.
    public func dot(_ other: Vector3) -> Double {
        x * other.x + y * other.y + z * other.z
    }

    /// The cross product `self × other` (right-handed).
    public func cross(_ other: Vector3) -> Vector3 {
        Vector3(
            x: y * other.z - z * other.y,
            y: z * other.x - x * other.z,
            z: x * other.y - y * other.x
        )
    }

    /// This vector scaled to length 1, or `.zero` when its length is 0.
    public var normalized: Vector3 {
        let length = norm
        return length > 0 ? self * (1 / length) : .zero
    }

    /// Component-wise sum.
    public static func + (lhs: Vector3, rhs: Vector3) -> Vector3 {
        Vector3(x: lhs.x + rhs.x, y: lhs.y + rhs.y, z: lhs.z + rhs.z)
    }

    /// Component-wise difference.
    public static func - (lhs: Vector3, rhs: Vector3) -> Vector3 {
        Vector3(x: lhs.x - rhs.x, y: lhs.y - rhs.y, z: lhs.z - rhs.z)
    }

    /// The opposite vector.
    public static prefix func - (vector: Vector3) -> Vector3 {
        Vector3(x: -vector.x, y: -vector.y, z: -vector.z)
    }

    /// The vector scaled by `factor`.
    public static func * (vector: Vector3, factor: Double) -> Vector3 {
        Vector3(x: vector.x * factor, y: vector.y * factor, z: vector.z * factor)
    }

    /// The vector scaled by `factor`.
    public static func * (factor: Double, vector: Vector3) -> Vector3 {
        vector * factor
    }

    /// The vector scaled by `factor`.
    public func scaled(by factor: Double) -> Vector3 { self * factor }
}
