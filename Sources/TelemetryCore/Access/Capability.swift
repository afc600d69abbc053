/// A Core Motion feature a device's hardware and OS provide, as the gateway's capability table
/// derives it from the `hello` (`model`, `platform`, `osVersion`); never taken from the device's word.
///
/// The raw value is the spelling used in `config/capabilities.yml` and in `gateway/{id}/availability`.
public enum Capability: String, CaseIterable, Sendable, Comparable, Codable {
    /// `CMMotionManager` device motion (≤ 100 Hz): the `motion` stream.
    case deviceMotion
    /// `CMBatchedSensorManager` 800 Hz accelerometer and 200 Hz device-motion batches: `batched/*`.
    case batchedSensors
    /// `CMHeadphoneMotionManager` head tracking: `headphone/*`.
    case headphoneMotion
    /// `CMWaterSubmersionManager` events, depth and water temperature: `submersion/*`.
    case waterSubmersion
    /// `CMPedometer` live data: `pedometer/data`.
    case pedometer
    /// `CMPedometer` pause/resume event tracking: `pedometer/event`.
    case pedometerEvents
    /// `CMAltimeter` relative altitude and pressure: `altimeter`.
    case altimeter
    /// `CMSensorRecorder` recorded 50 Hz accelerometer: `recorder/*`.
    case sensorRecorder

    /// What the capability is, in words, for denial details (plural, so "… need …" reads well).
    public var summary: String {
        switch self {
        case .deviceMotion: "device motion updates (CMMotionManager)"
        case .batchedSensors: "batched 800/200 Hz sensors (CMBatchedSensorManager)"
        case .headphoneMotion: "headphone motion updates (CMHeadphoneMotionManager)"
        case .waterSubmersion: "water submersion updates (CMWaterSubmersionManager)"
        case .pedometer: "pedometer updates (CMPedometer)"
        case .pedometerEvents: "pedometer pause/resume events (CMPedometer event updates)"
        case .altimeter: "relative altitude updates (CMAltimeter)"
        case .sensorRecorder: "recorded accelerometer data (CMSensorRecorder)"
        }
    }

    /// Orders by name, so published lists are stable and alphabetical.
    public static func < (lhs: Capability, rhs: Capability) -> Bool { lhs.rawValue < rhs.rawValue }
}
