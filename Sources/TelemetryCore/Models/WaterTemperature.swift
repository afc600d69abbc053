/// A water temperature reading (`submersion/temperature`), as Core Motion's
/// `CMWaterTemperature`: only while submerged, readings converge over time.
public struct WaterTemperature: Sendable, Equatable, Hashable, Codable {
    /// When it was measured, Unix epoch seconds.
    public var date: Double
    /// Water temperature, °C.
    public var temperature: Double
    /// Uncertainty of `temperature`, °C (shrinks as the reading converges).
    public var temperatureUncertainty: Double

    /// Creates a water temperature reading.
    /// - Parameters:
    ///   - date: Unix epoch seconds.
    ///   - temperature: °C.
    ///   - temperatureUncertainty: °C.
    public init(date: Double, temperature: Double, temperatureUncertainty: Double) {
        self.date = date
        self.temperature = temperature
        self.temperatureUncertainty = temperatureUncertainty
    }
}
