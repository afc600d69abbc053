/// The streams a device may publish, one per topic path below `wearables/{id}/` (wire contract v1).
///
/// The raw value is that path, e.g. `batched/accelerometer`.
public enum InboundStream: String, CaseIterable, Sendable {
    /// The device descriptor (model, platform, OS, authorization); published retained.
    case hello = "hello"
    /// Bridge presence `{"state":"online"|"offline","date"?}`; the bridge's will sets offline.
    case status = "status"
    /// CMAuthorizationStatus changes.
    case authorization = "authorization"
    /// HKWorkoutSession state and activity type.
    case workout = "workout"
    /// CMHeadphoneMotionManagerDelegate connect and disconnect events.
    case headphoneConnection = "headphone/connection"
    /// CMHeadphoneMotionManager device motion (~25 Hz).
    case headphoneMotion = "headphone/motion"
    /// CMMotionManager device motion (≤100 Hz).
    case motion = "motion"
    /// CMBatchedSensorManager accelerometer batches (800 Hz).
    case batchedAccelerometer = "batched/accelerometer"
    /// CMBatchedSensorManager device-motion batches (200 Hz).
    case batchedDeviceMotion = "batched/device-motion"
    /// CMWaterSubmersionEvent.
    case submersionEvent = "submersion/event"
    /// CMWaterSubmersionMeasurement.
    case submersionMeasurement = "submersion/measurement"
    /// CMWaterTemperature.
    case submersionTemperature = "submersion/temperature"
    /// CMPedometerData.
    case pedometerData = "pedometer/data"
    /// CMPedometerEvent (pause and resume).
    case pedometerEvent = "pedometer/event"
    /// CMAltitudeData.
    case altimeter = "altimeter"
    /// CMSensorRecorder accelerometer chunks (50 Hz).
    case recorderAccelerometer = "recorder/accelerometer"

    /// Finds the stream whose path is exactly `path` (byte for byte, as MQTT compares topics).
    /// - Parameter path: the topic levels below the device id, e.g. `pedometer/data`.
    /// - Returns: nil when the contract has no such stream.
    public init?(path: some StringProtocol) {
        // Byte comparison: String == would treat canonically equivalent Unicode as equal, MQTT does not.
        guard let stream = Self.allCases.first(where: { $0.rawValue.utf8.elementsEqual(path.utf8) }) else { return nil }
        self = stream
    }

    /// Whether the stream carries high-rate samples (`batched/*`, `motion`, `headphone/motion`, `recorder/*`);
    /// these also accept the binary encoding.
    public var isHighRate: Bool {
        switch self {
        case .batchedAccelerometer, .batchedDeviceMotion, .motion, .headphoneMotion, .recorderAccelerometer:
            true
        case .hello, .status, .authorization, .workout, .headphoneConnection, .submersionEvent, .submersionMeasurement,
            .submersionTemperature, .pedometerData, .pedometerEvent, .altimeter:
            false
        }
    }
}
