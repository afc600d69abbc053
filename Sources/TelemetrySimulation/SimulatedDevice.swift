public import TelemetryCore

/// One synthetic wearable: who it says it is (`hello`) and what it does.
///
/// Use the presets (``appleWatchUltra2(id:)``, ``appleWatchSeries9(id:activity:)``,
/// ``airPodsPro2(id:)``, ``iPhone15Pro(id:)``) or build one field by field.
public struct SimulatedDevice: Sendable, Equatable {
    /// The kind of device, which decides its streams.
    public enum Kind: String, Sendable, CaseIterable {
        /// Apple Watch: workout, batched, motion, pedometer, altimeter, recorder (+ submersion on Ultra).
        case watch
        /// Motion-capable headphones streamed by a phone's CMHeadphoneMotionManager.
        case headphones
        /// iPhone: motion, pedometer, altimeter.
        case phone
    }

    /// What the wearer is doing; decides the motion pattern and the workout's activity type.
    public enum Activity: String, Sendable, CaseIterable {
        /// Alternating forehand/backhand swings every few seconds.
        case tennis
        /// A fast bat swing with an impact every few seconds.
        case baseball
        /// Slow movements and repeated dives (needs ``SimulatedDevice/supportsSubmersion``).
        case underwaterDiving
        /// Walking: step bounce, gentle hills.
        case walking

        /// The `HKWorkoutActivityType` case name written in `workout`.
        public var workoutActivityType: String { rawValue }
    }

    /// Device id, the topic level after the root: 1–64 characters of `[A-Za-z0-9._-]`.
    public var id: String
    /// Watch, headphones or phone.
    public var kind: Kind
    /// The `hello` payload.
    public var descriptor: DeviceDescriptor
    /// What the wearer does.
    public var activity: Activity
    /// Whether the device has a depth gauge (Apple Watch Ultra) and publishes `submersion/*`.
    public var supportsSubmersion: Bool
    /// The entitlement's maximum depth in m (6 shallow, 40 full) used for the device-side
    /// ``DepthState``; the dive profile goes past it to show every state.
    public var maximumDepth: Double
    /// When set, only these of the device's streams are published (topic paths such as
    /// `"submersion/measurement"`); `nil` publishes all of them.
    public var enabledStreams: Set<String>?

    /// Creates a device.
    /// - Parameters:
    ///   - id: device id (topic level).
    ///   - kind: watch, headphones or phone.
    ///   - descriptor: the `hello` payload.
    ///   - activity: what the wearer does.
    ///   - supportsSubmersion: whether it publishes `submersion/*`.
    ///   - maximumDepth: entitlement maximum depth, m.
    ///   - enabledStreams: the only streams to publish, or `nil` for all.
    public init(
        id: String,
        kind: Kind,
        descriptor: DeviceDescriptor,
        activity: Activity,
        supportsSubmersion: Bool = false,
        maximumDepth: Double = 6,
        enabledStreams: Set<String>? = nil
    ) {
        self.id = id
        self.kind = kind
        self.descriptor = descriptor
        self.activity = activity
        self.supportsSubmersion = supportsSubmersion
        self.maximumDepth = maximumDepth
        self.enabledStreams = enabledStreams
    }

    /// An Apple Watch Ultra 2 (watchOS 10.1) on the left wrist, diving with the shallow
    /// entitlement (6 m), so every depth state appears.
    public static func appleWatchUltra2(id: String) -> SimulatedDevice {
        SimulatedDevice(
            id: id,
            kind: .watch,
            descriptor: DeviceDescriptor(
                model: "Apple Watch Ultra 2", platform: "watchOS", osVersion: "10.1", app: "com.example.dive",
                authorization: .authorized, wristLocation: .left, crownOrientation: .right
            ),
            activity: .underwaterDiving,
            supportsSubmersion: true,
            maximumDepth: 6
        )
    }

    /// An Apple Watch Series 9 (watchOS 10.1) on the right wrist; no depth gauge.
    /// - Parameter activity: tennis (default), baseball or walking.
    public static func appleWatchSeries9(id: String, activity: Activity = .tennis) -> SimulatedDevice {
        SimulatedDevice(
            id: id,
            kind: .watch,
            descriptor: DeviceDescriptor(
                model: "Apple Watch Series 9", platform: "watchOS", osVersion: "10.1", app: "com.example.swing",
                authorization: .authorized, wristLocation: .right, crownOrientation: .right
            ),
            activity: activity
        )
    }

    /// AirPods Pro (2nd generation) head tracking, published by an iOS 17.1 bridge app. The
    /// descriptor's `model` is the headphones (so a capability table can key on it) and
    /// `headphones` repeats it.
    public static func airPodsPro2(id: String) -> SimulatedDevice {
        SimulatedDevice(
            id: id,
            kind: .headphones,
            descriptor: DeviceDescriptor(
                model: "AirPods Pro (2nd generation)", platform: "iOS", osVersion: "17.1",
                app: "com.example.headtracking", authorization: .authorized,
                headphones: "AirPods Pro (2nd generation)"
            ),
            activity: .walking
        )
    }

    /// An iPhone 15 Pro (iOS 17.1) carried while walking.
    public static func iPhone15Pro(id: String) -> SimulatedDevice {
        SimulatedDevice(
            id: id,
            kind: .phone,
            descriptor: DeviceDescriptor(
                model: "iPhone 15 Pro", platform: "iOS", osVersion: "17.1", app: "com.example.steps",
                authorization: .authorized
            ),
            activity: .walking
        )
    }

    /// The contract streams this device publishes, as topic paths below its id
    /// (for example `"batched/accelerometer"`), in publishing order for a given instant.
    public var streams: [String] { contractStreams.map(\.path) }

    /// The contract streams this device publishes, in publishing order for a given instant.
    var contractStreams: [ContractStream] {
        ContractStream.allCases.filter { stream in
            if let enabledStreams, !enabledStreams.contains(stream.path) { return false }
            return switch stream {
            case .hello, .status, .authorization:
                true
            case .workout, .batchedAccelerometer, .batchedDeviceMotion, .recorderAccelerometer:
                kind == .watch
            case .motion, .pedometerData, .pedometerEvent, .altimeter:
                kind != .headphones
            case .headphoneConnection, .headphoneMotion:
                kind == .headphones
            case .submersionEvent, .submersionMeasurement, .submersionTemperature:
                kind == .watch && supportsSubmersion
            }
        }
    }
}
