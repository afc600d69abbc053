/// Core Motion's error codes in `CMErrorDomain` (C enum `CMError`, imported with a `UInt32`
/// raw value). Case names drop the `CMError` prefix of the C constants.
public enum CMErrorCode: UInt32, WireEnumeration {
    /// `CMErrorNULL`: no error.
    case null = 100
    /// `CMErrorDeviceRequiresMovement`: the device must move to calibrate.
    case deviceRequiresMovement = 101
    /// `CMErrorTrueNorthNotAvailable`: true north is unavailable.
    case trueNorthNotAvailable = 102
    /// `CMErrorUnknown`: unknown error.
    case unknown = 103
    /// `CMErrorMotionActivityNotAvailable`: motion activity is unsupported on the device.
    case motionActivityNotAvailable = 104
    /// `CMErrorMotionActivityNotAuthorized`: not authorized for motion activity.
    case motionActivityNotAuthorized = 105
    /// `CMErrorMotionActivityNotEntitled`: missing entitlement for motion activity.
    case motionActivityNotEntitled = 106
    /// `CMErrorInvalidParameter`: invalid parameter (the gateway's `invalidPayload`).
    case invalidParameter = 107
    /// `CMErrorInvalidAction`: invalid action (the gateway's `noActiveWorkout`).
    case invalidAction = 108
    /// `CMErrorNotAvailable`: the service is not available on the device.
    case notAvailable = 109
    /// `CMErrorNotEntitled`: a required entitlement is missing (e.g. submersion).
    case notEntitled = 110
    /// `CMErrorNotAuthorized`: the app is not authorized for Core Motion.
    case notAuthorized = 111
    /// `CMErrorNilData`: Core Motion returned no data.
    case nilData = 112
    /// `CMErrorSize`: the data has an incorrect size.
    case size = 113

    /// The case name, for example `"notEntitled"`.
    public var name: String {
        switch self {
        case .null: "null"
        case .deviceRequiresMovement: "deviceRequiresMovement"
        case .trueNorthNotAvailable: "trueNorthNotAvailable"
        case .unknown: "unknown"
        case .motionActivityNotAvailable: "motionActivityNotAvailable"
        case .motionActivityNotAuthorized: "motionActivityNotAuthorized"
        case .motionActivityNotEntitled: "motionActivityNotEntitled"
        case .invalidParameter: "invalidParameter"
        case .invalidAction: "invalidAction"
        case .notAvailable: "notAvailable"
        case .notEntitled: "notEntitled"
        case .notAuthorized: "notAuthorized"
        case .nilData: "nilData"
        case .size: "size"
        }
    }

    /// The C constant's name, for example `"CMErrorNotEntitled"` (`"CMErrorNULL"` for 100).
    public var constantName: String {
        switch self {
        case .null: "CMErrorNULL"
        default: "CMError" + name.prefix(1).uppercased() + name.dropFirst()
        }
    }
}
