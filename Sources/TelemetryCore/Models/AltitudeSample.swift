/// A barometric altitude reading (`altimeter`), as Core Motion's `CMAltitudeData`.
public struct AltitudeSample: Sendable, Equatable, Hashable {
    /// When the sample is valid, in seconds since the device booted (CMLogItem).
    public var timestamp: Double
    /// Altitude change since the first reported sample (which is 0), m.
    public var relativeAltitude: Double
    /// Air pressure, kPa.
    public var pressure: Double

    /// Creates an altitude sample.
    /// - Parameters:
    ///   - timestamp: seconds since boot.
    ///   - relativeAltitude: m since the first sample.
    ///   - pressure: kPa.
    public init(timestamp: Double, relativeAltitude: Double, pressure: Double) {
        self.timestamp = timestamp
        self.relativeAltitude = relativeAltitude
        self.pressure = pressure
    }
}
