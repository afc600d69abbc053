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
        let found: InboundStream? =
            path.utf8.withContiguousStorageIfAvailable { Self.stream(pathBytes: $0) }
            ?? Array(path.utf8).withUnsafeBufferPointer { Self.stream(pathBytes: $0) }
        guard let found else { return nil }
        self = found
    }

    /// Finds the stream whose path is exactly `bytes` (UTF-8), for parsers that hold a topic's bytes.
    ///
    /// Runs for every frame: compares lengths, then the bytes of a table made once. A generic
    /// `elementsEqual` over each case's `String` made the topic parse a ninth of a protobuf
    /// frame's processing (docs/performance.md, "Topics parsed from their bytes").
    /// - Parameter bytes: the topic levels below the device id.
    /// - Returns: nil when the contract has no such stream.
    static func stream(pathBytes bytes: UnsafeBufferPointer<UInt8>) -> InboundStream? {
        for (path, stream) in pathTable where path.count == bytes.count {
            if path.withUnsafeBufferPointer({ $0.elementsEqual(bytes) }) { return stream }
        }
        return nil
    }

    /// Every stream's path as UTF-8 bytes, in declaration order.
    private static let pathTable: [(path: [UInt8], stream: InboundStream)] = allCases.map { (Array($0.rawValue.utf8), $0) }

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
