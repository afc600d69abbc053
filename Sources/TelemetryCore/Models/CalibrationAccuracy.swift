/// How well the magnetometer is calibrated, as Core Motion's
/// `CMMagneticFieldCalibrationAccuracy` (C `int`, so the raw value is `Int32`).
public enum CalibrationAccuracy: Int32, WireEnumeration {
    /// No calibration (also: no magnetometer, or the reference frame does not use it).
    case uncalibrated = -1
    /// Low accuracy.
    case low = 0
    /// Medium accuracy.
    case medium = 1
    /// High accuracy.
    case high = 2

    /// The Core Motion case name, for example `"uncalibrated"`.
    public var name: String {
        switch self {
        case .uncalibrated: "uncalibrated"
        case .low: "low"
        case .medium: "medium"
        case .high: "high"
        }
    }
}
