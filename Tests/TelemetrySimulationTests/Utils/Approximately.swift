import TelemetryCore

/// Whether two numbers differ by at most `tolerance`.
func isClose(_ lhs: Double, _ rhs: Double, tolerance: Double = 1e-9) -> Bool {
    abs(lhs - rhs) <= tolerance
}

/// Whether two vectors differ by at most `tolerance` per component.
func isClose(_ lhs: Vector3, _ rhs: Vector3, tolerance: Double = 1e-9) -> Bool {
    isClose(lhs.x, rhs.x, tolerance: tolerance) && isClose(lhs.y, rhs.y, tolerance: tolerance)
        && isClose(lhs.z, rhs.z, tolerance: tolerance)
}

/// Whether two quaternions are equal per component within `tolerance`.
func isClose(_ lhs: Quaternion, _ rhs: Quaternion, tolerance: Double = 1e-9) -> Bool {
    isClose(lhs.x, rhs.x, tolerance: tolerance) && isClose(lhs.y, rhs.y, tolerance: tolerance)
        && isClose(lhs.z, rhs.z, tolerance: tolerance) && isClose(lhs.w, rhs.w, tolerance: tolerance)
}

/// Whether two unit quaternions are the same rotation (q and −q are).
func isSameRotation(_ lhs: Quaternion, _ rhs: Quaternion, tolerance: Double = 1e-9) -> Bool {
    isClose(lhs, rhs, tolerance: tolerance)
        || isClose(lhs, Quaternion(x: -rhs.x, y: -rhs.y, z: -rhs.z, w: -rhs.w), tolerance: tolerance)
}

/// `angle` wrapped into (−π, π].
func wrappedAngle(_ angle: Double) -> Double {
    var wrapped = angle.truncatingRemainder(dividingBy: 2 * .pi)
    if wrapped <= -.pi { wrapped += 2 * .pi }
    if wrapped > .pi { wrapped -= 2 * .pi }
    return wrapped
}
