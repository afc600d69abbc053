/// What a frame of one inbound stream needs to pass the access checks.
///
/// Control streams (`hello`, `status`, `authorization`, `workout`) carry the state the checks
/// read: they pass on the registry check alone, so a device can announce itself, report a
/// changed authorization (also from `denied` back to `authorized`) and start a workout before
/// any `hello` of it is seen (the retained `hello` may arrive after them when the gateway
/// subscribes). Data streams need, in order: a `hello` and the ``capability`` (`notAvailable`),
/// an `authorized` status (`notAuthorized`), one of ``entitlements`` (`notEntitled`) and, for
/// `batched/*`, a running workout (`noActiveWorkout`).
public struct StreamRequirement: Sendable, Equatable {
    /// The capability the device's model and OS must have; nil for control streams.
    public var capability: Capability?
    /// The entitlements of which any one grants the stream; empty for control streams.
    public var entitlements: Set<Entitlement>
    /// Whether frames are only accepted while a workout session is running (`batched/*`).
    public var needsRunningWorkout: Bool

    /// Creates a requirement.
    /// - Parameters:
    ///   - capability: the capability needed, or nil for a control stream.
    ///   - entitlements: the entitlements of which any one grants the stream.
    ///   - needsRunningWorkout: whether a running workout is needed.
    public init(capability: Capability?, entitlements: Set<Entitlement>, needsRunningWorkout: Bool = false) {
        self.capability = capability
        self.entitlements = entitlements
        self.needsRunningWorkout = needsRunningWorkout
    }

    /// Whether the stream only carries device state (registry check only).
    public var isControl: Bool { capability == nil }

    /// The requirement of a stream (wire contract v1, "Checks before any derivation").
    /// - Parameter stream: the inbound stream.
    /// - Returns: its requirement.
    public static func of(_ stream: InboundStream) -> StreamRequirement {
        switch stream {
        case .hello, .status, .authorization, .workout:
            control
        case .headphoneConnection, .headphoneMotion:
            headphone
        case .motion:
            deviceMotion
        case .batchedAccelerometer, .batchedDeviceMotion:
            batched
        case .submersionEvent, .submersionMeasurement, .submersionTemperature:
            submersion
        case .pedometerData:
            pedometer
        case .pedometerEvent:
            pedometerEvents
        case .altimeter:
            altimeter
        case .recorderAccelerometer:
            recorder
        }
    }

    private static let control = StreamRequirement(capability: nil, entitlements: [])
    private static let headphone = StreamRequirement(capability: .headphoneMotion, entitlements: [.motionHeadphone])
    private static let deviceMotion = StreamRequirement(capability: .deviceMotion, entitlements: [.motionDevice])
    private static let batched = StreamRequirement(capability: .batchedSensors, entitlements: [.motionBatched], needsRunningWorkout: true)
    private static let submersion = StreamRequirement(capability: .waterSubmersion, entitlements: [.submersionShallow, .submersionFull])
    private static let pedometer = StreamRequirement(capability: .pedometer, entitlements: [.pedometer])
    private static let pedometerEvents = StreamRequirement(capability: .pedometerEvents, entitlements: [.pedometer])
    private static let altimeter = StreamRequirement(capability: .altimeter, entitlements: [.altimeter])
    private static let recorder = StreamRequirement(capability: .sensorRecorder, entitlements: [.recorder])
}
