/// One decoded inbound frame: the model of its stream and the contract's optional `sequence`.
///
/// Every encoding decodes into this type (JSON with ``FrameDecoder/decodeJSON(_:stream:)``; a
/// binary decoder produces the same cases), so validation and later derivations see one shape.
/// Cases are named after ``InboundStream`` cases. Batch models (``SampleBatch``,
/// ``RecordedAccelerometerChunk``) carry the sequence themselves; the other cases carry it next to
/// the model. ``sequence`` reads it uniformly.
public enum DecodedFrame: Sendable, Equatable {
    /// `hello`: the device descriptor.
    case hello(DeviceDescriptor, sequence: UInt64?)
    /// `status`: bridge presence.
    case status(DeviceStatus, sequence: UInt64?)
    /// `authorization`: a motion authorization change.
    case authorization(AuthorizationChange, sequence: UInt64?)
    /// `workout`: a workout session state change.
    case workout(WorkoutEvent, sequence: UInt64?)
    /// `headphone/connection`: headphones connected or disconnected.
    case headphoneConnection(HeadphoneConnectionEvent, sequence: UInt64?)
    /// `headphone/motion`: head tracking samples (~25 Hz).
    case headphoneMotion(DeviceMotionBatch)
    /// `motion`: CMMotionManager device motion (≤ 100 Hz).
    case motion(DeviceMotionBatch)
    /// `batched/accelerometer`: about one second of 800 Hz accelerometer samples.
    case batchedAccelerometer(AccelerometerBatch)
    /// `batched/device-motion`: about one second of 200 Hz device motion.
    case batchedDeviceMotion(DeviceMotionBatch)
    /// `submersion/event`: a submersion state change.
    case submersionEvent(SubmersionEvent, sequence: UInt64?)
    /// `submersion/measurement`: depth and pressure.
    case submersionMeasurement(SubmersionMeasurement, sequence: UInt64?)
    /// `submersion/temperature`: water temperature.
    case submersionTemperature(WaterTemperature, sequence: UInt64?)
    /// `pedometer/data`: cumulative pedometer data.
    case pedometerData(PedometerData, sequence: UInt64?)
    /// `pedometer/event`: pause or resume.
    case pedometerEvent(PedometerEvent, sequence: UInt64?)
    /// `altimeter`: a barometric altitude sample.
    case altimeter(AltitudeSample, sequence: UInt64?)
    /// `recorder/accelerometer`: a chunk of recorded 50 Hz accelerometer samples.
    case recorderAccelerometer(RecordedAccelerometerChunk)

    /// The stream the frame belongs to.
    public var stream: InboundStream {
        switch self {
        case .hello: .hello
        case .status: .status
        case .authorization: .authorization
        case .workout: .workout
        case .headphoneConnection: .headphoneConnection
        case .headphoneMotion: .headphoneMotion
        case .motion: .motion
        case .batchedAccelerometer: .batchedAccelerometer
        case .batchedDeviceMotion: .batchedDeviceMotion
        case .submersionEvent: .submersionEvent
        case .submersionMeasurement: .submersionMeasurement
        case .submersionTemperature: .submersionTemperature
        case .pedometerData: .pedometerData
        case .pedometerEvent: .pedometerEvent
        case .altimeter: .altimeter
        case .recorderAccelerometer: .recorderAccelerometer
        }
    }

    /// The contract's per-device, per-stream frame counter; `nil` when the sender does not number
    /// frames (retained `hello` and `status` usually do not).
    public var sequence: UInt64? {
        switch self {
        case .hello(_, let sequence), .status(_, let sequence), .authorization(_, let sequence),
            .workout(_, let sequence), .headphoneConnection(_, let sequence), .submersionEvent(_, let sequence),
            .submersionMeasurement(_, let sequence), .submersionTemperature(_, let sequence),
            .pedometerData(_, let sequence), .pedometerEvent(_, let sequence), .altimeter(_, let sequence):
            sequence
        case .headphoneMotion(let batch), .motion(let batch), .batchedDeviceMotion(let batch):
            batch.sequence
        case .batchedAccelerometer(let batch):
            batch.sequence
        case .recorderAccelerometer(let chunk):
            chunk.sequence
        }
    }
}
