import TelemetryCore

// Simulated values are rounded to a sensor-like resolution. Besides looking like real data,
// short decimals keep each number's text short, which keeps JSON writing fast.

extension Double {
    /// Rounded to a multiple of 10⁻⁶ (µg, µrad/s, µs, µm).
    @inline(__always)
    var micro: Double { rounded(toPlaces: 6) }

    /// Rounded to a multiple of 10⁻³ (ms for dates, mm, m°).
    @inline(__always)
    var milli: Double { rounded(toPlaces: 3) }
}

extension Vector3 {
    /// Each component rounded to 10⁻⁶.
    @inline(__always)
    var micro: Vector3 { Vector3(x: x.micro, y: y.micro, z: z.micro) }
}

extension Quaternion {
    /// Each component rounded to 10⁻⁶ (the norm stays within 10⁻⁵ of 1).
    @inline(__always)
    var micro: Quaternion { Quaternion(x: x.micro, y: y.micro, z: z.micro, w: w.micro) }
}
