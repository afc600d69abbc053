/// Depth from water pressure, as the wire contract defines it.
public enum WaterDepth {
    /// Standard gravity g, m/s².
    public static let standardGravity = 9.80665
    /// Density of sea water, kg/m³ (the default).
    public static let seaWaterDensity = 1025.0
    /// Density of fresh water, kg/m³ (lakes, pools).
    public static let freshWaterDensity = 997.0

    /// depth = (pressure − surfacePressure) / (ρ·g), with pressures in kPa.
    ///
    /// For example (121.40 − 101.30) kPa with sea water: 20 100 Pa / (1025 kg/m³ · 9.80665 m/s²)
    /// ≈ 1.9997 m; in fresh water ≈ 2.0558 m. The result is negative when the pressure is below
    /// the surface pressure (sensor noise at the surface); it is not clamped.
    /// - Parameters:
    ///   - pressure: absolute water pressure, kPa.
    ///   - surfacePressure: air pressure at the surface, kPa.
    ///   - density: ρ in kg/m³.
    /// - Returns: depth in m.
    public static func depth(pressure: Double, surfacePressure: Double, density: Double = seaWaterDensity) -> Double {
        (pressure - surfacePressure) * 1000 / (density * standardGravity)
    }
}
