/// A depth and pressure reading (`submersion/measurement`), as Core Motion's
/// `CMWaterSubmersionMeasurement`: 3 Hz while submerged, slower at the surface.
public struct SubmersionMeasurement: Sendable, Equatable, Hashable {
    /// When the system recorded it, Unix epoch seconds.
    public var date: Double
    /// Depth under water in m, positive when under water; `nil` when not submerged or in
    /// ``DepthState/sensorDepthError``.
    public var depth: Double?
    /// Water pressure in kPa; `nil` when not submerged or in ``DepthState/sensorDepthError``.
    public var pressure: Double?
    /// Surface (air) pressure in kPa.
    public var surfacePressure: Double
    /// The depth band.
    public var submersionState: DepthState

    /// Creates a submersion measurement.
    /// - Parameters:
    ///   - date: Unix epoch seconds.
    ///   - depth: m, if reported.
    ///   - pressure: kPa, if reported.
    ///   - surfacePressure: kPa.
    ///   - submersionState: the depth band.
    public init(date: Double, depth: Double?, pressure: Double?, surfacePressure: Double, submersionState: DepthState) {
        self.date = date
        self.depth = depth
        self.pressure = pressure
        self.surfacePressure = surfacePressure
        self.submersionState = submersionState
    }
}
