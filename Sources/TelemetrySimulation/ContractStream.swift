import MQTTVocabulary

/// The inbound streams of the wire contract, in the order a device publishes them at the same
/// instant (so `hello` comes before data, and a submersion event before measurements).
enum ContractStream: Int, CaseIterable, Sendable {
    case hello
    case status
    case authorization
    case workout
    case headphoneConnection
    case submersionEvent
    case pedometerEvent
    case batchedAccelerometer
    case batchedDeviceMotion
    case motion
    case headphoneMotion
    case recorderAccelerometer
    case submersionMeasurement
    case submersionTemperature
    case pedometerData
    case altimeter

    /// When a stream's frames are due.
    enum Schedule {
        /// One frame when the device starts.
        case once
        /// Frames at `framesPerSecond`, the first one period after the device starts.
        case periodic(framesPerSecond: Double)
        /// Frames when the device's profile says something happens.
        case events
    }

    /// The topic path below the device id.
    var path: String {
        switch self {
        case .hello: "hello"
        case .status: "status"
        case .authorization: "authorization"
        case .workout: "workout"
        case .headphoneConnection: "headphone/connection"
        case .submersionEvent: "submersion/event"
        case .pedometerEvent: "pedometer/event"
        case .batchedAccelerometer: "batched/accelerometer"
        case .batchedDeviceMotion: "batched/device-motion"
        case .motion: "motion"
        case .headphoneMotion: "headphone/motion"
        case .recorderAccelerometer: "recorder/accelerometer"
        case .submersionMeasurement: "submersion/measurement"
        case .submersionTemperature: "submersion/temperature"
        case .pedometerData: "pedometer/data"
        case .altimeter: "altimeter"
        }
    }

    /// Retained by the broker: the device's identity and presence.
    var retain: Bool { self == .hello || self == .status }

    /// Whether frames carry `"sequence"`. Retained frames do not: the broker replays them on
    /// every subscription, which would look like duplicates.
    var isNumbered: Bool { !retain }

    /// QoS 0 for the per-sample motion streams (the next frame supersedes a lost one), 1 otherwise.
    var qos: MQTTQoS { self == .motion || self == .headphoneMotion ? .atMostOnce : .atLeastOnce }

    var schedule: Schedule {
        switch self {
        case .hello, .status, .authorization, .workout, .headphoneConnection: .once
        case .submersionEvent, .pedometerEvent: .events
        case .batchedAccelerometer, .batchedDeviceMotion, .recorderAccelerometer, .pedometerData, .altimeter:
            .periodic(framesPerSecond: 1)
        case .motion, .headphoneMotion: .periodic(framesPerSecond: 5)
        case .submersionMeasurement, .submersionTemperature: .periodic(framesPerSecond: 3)
        }
    }

    /// Sample rate in Hz and samples per frame of the sample-array streams.
    var sampling: (rate: Double, perFrame: Int)? {
        switch self {
        case .batchedAccelerometer: (800, 800)
        case .batchedDeviceMotion: (200, 200)
        case .motion: (50, 10)
        case .headphoneMotion: (25, 5)
        case .recorderAccelerometer: (50, 50)
        default: nil
        }
    }
}
