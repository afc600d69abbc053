/// A calibrated magnetic field, as Core Motion's `CMCalibratedMagneticField` in
/// `CMDeviceMotion.magneticField`: the Earth's field plus surroundings, device bias removed.
public struct MagneticField: Sendable, Equatable, Hashable {
    /// The field in the device frame, in µT (microtesla).
    public var field: Vector3
    /// How well calibrated `field` is.
    public var accuracy: CalibrationAccuracy

    /// Creates a calibrated magnetic field.
    /// - Parameters:
    ///   - field: the field in the device frame, µT.
    ///   - accuracy: its calibration accuracy.
    public init(field: Vector3, accuracy: CalibrationAccuracy) {
        self.field = field
        self.accuracy = accuracy
    }
}
