extension Double {
    /// Powers of ten that are exact in binary floating point (10⁰ … 10¹⁵).
    private static let decimalScales: [Double] = (0...15).map { exponent in
        var scale = 1.0
        for _ in 0..<exponent { scale *= 10 }
        return scale
    }

    /// Rounded to `places` decimal places, half away from zero: the one rounding rule for every
    /// published value computed from samples (and the simulator's sensor resolution), so the
    /// same quantity is never rounded two ways.
    /// - Parameter places: decimal places, 0…15.
    /// - Returns: the nearest multiple of 10^-places (as a Double).
    @inline(__always)
    public func rounded(toPlaces places: Int) -> Double {
        let scale = Self.decimalScales[places]
        return (self * scale).rounded() / scale
    }
}
