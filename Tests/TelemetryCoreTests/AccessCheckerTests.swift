import Testing

@testable import TelemetryCore

/// Values shared by the access tests: a capability table mirroring `config/capabilities.yml`
/// (the gateway tests check the shipped file itself), descriptors and registries.
enum AccessFixtures {
    static func version(_ text: String) -> OSVersion { OSVersion(text)! }
    static func patterns(_ texts: String...) -> [ModelPattern] { texts.map { ModelPattern($0)! } }
    static func on(_ platform: String, _ minimum: String) -> CapabilityRule.PlatformMinimum {
        .init(platform: platform, minimum: version(minimum))
    }

    /// The rules of `config/capabilities.yml`, in Swift.
    static let table = CapabilityTable(rules: [
        .init(capabilities: [.deviceMotion], models: patterns("Apple Watch*"), platforms: [on("watchOS", "3.0")]),
        .init(capabilities: [.pedometer, .sensorRecorder], models: patterns("Apple Watch*"), platforms: [on("watchOS", "2.0")]),
        .init(capabilities: [.pedometerEvents], models: patterns("Apple Watch*"), platforms: [on("watchOS", "3.0")]),
        .init(
            capabilities: [.altimeter], models: patterns("Apple Watch Series 3+", "Apple Watch SE*", "Apple Watch Ultra*"),
            platforms: [on("watchOS", "4.0")]),
        .init(capabilities: [.batchedSensors], models: patterns("Apple Watch Series 8+", "Apple Watch Ultra*"), platforms: [on("watchOS", "10.0")]),
        .init(capabilities: [.waterSubmersion], models: patterns("Apple Watch Ultra*"), platforms: [on("watchOS", "9.0")]),
        .init(
            capabilities: [.deviceMotion, .pedometer, .pedometerEvents, .altimeter, .sensorRecorder],
            models: patterns("iPhone 8+", "iPhone X*", "iPhone SE (2nd generation)", "iPhone SE (3rd generation)"),
            platforms: [on("iOS", "10.0")]),
        .init(
            capabilities: [.headphoneMotion],
            models: patterns("AirPods Pro*", "AirPods Max*", "AirPods (3rd generation)", "Beats Fit Pro*"),
            platforms: [on("iOS", "14.0"), on("iPadOS", "14.0"), on("macOS", "14.0")]),
    ])

    static func watch(_ model: String, _ os: String = "10.1", authorization: AuthorizationStatus = .authorized) -> DeviceDescriptor {
        DeviceDescriptor(model: model, platform: "watchOS", osVersion: os, app: "com.example.test", authorization: authorization)
    }

    static let ultra2 = watch("Apple Watch Ultra 2")
    static let series9 = watch("Apple Watch Series 9")
    static let series7 = watch("Apple Watch Series 7")
    static let series8OnWatchOS9 = watch("Apple Watch Series 8", "9.6")
    static let airPods = DeviceDescriptor(
        model: "AirPods Pro (2nd generation)", platform: "iOS", osVersion: "17.1", app: "com.example.head", authorization: .authorized,
        headphones: "AirPods Pro (2nd generation)")
    static let iPhone = DeviceDescriptor(model: "iPhone 15 Pro", platform: "iOS", osVersion: "17.1", app: "com.example.steps", authorization: .authorized)

    static let id = DeviceID("dev-1")!
    static let allWatch: Set<Entitlement> = [.motionBatched, .motionDevice, .pedometer, .altimeter, .recorder]

    static func registry(_ entitlements: Set<Entitlement>, open: Bool = false, defaults: Set<Entitlement> = []) -> DeviceRegistry {
        DeviceRegistry(isOpen: open, defaultEntitlements: defaults, devices: [id: entitlements])
    }

    /// A state from a hello (live), then optionally an authorization frame and a workout frame.
    static func state(
        _ descriptor: DeviceDescriptor?,
        authorization: AuthorizationStatus? = nil,
        workout: WorkoutState? = nil
    ) -> DeviceAccessState {
        var state = DeviceAccessState()
        if let descriptor { state.apply(hello: descriptor, retained: false) }
        if let authorization { state.apply(authorization: AuthorizationChange(status: authorization, date: 1_700_000_100)) }
        if let workout { state.apply(workout: WorkoutEvent(state: workout, activityType: "tennis", date: 1_700_000_200)) }
        return state
    }
}

/// One row of the verdict table.
struct VerdictCase: CustomTestStringConvertible, Sendable {
    var name: String
    var stream: InboundStream
    var state: DeviceAccessState?
    var registry: DeviceRegistry
    var device: DeviceID = AccessFixtures.id
    /// nil: allowed.
    var expected: GatewayErrorCode?
    var maximumDepth: Double? = nil

    var testDescription: String { name }
}

@Suite("Access checks: the verdict table")
struct AccessCheckerTests {
    typealias F = AccessFixtures

    static let cases: [VerdictCase] = [
        // Registry.
        .init(name: "closed registry, unknown id, hello → unknownDevice", stream: .hello, state: nil, registry: .closed, expected: .unknownDevice),
        .init(
            name: "unknown id with no hello gets unknownDevice, not notAvailable", stream: .batchedAccelerometer, state: nil,
            registry: F.registry(F.allWatch), device: DeviceID("stranger")!, expected: .unknownDevice),
        .init(
            name: "unknown id that is denied and unentitled still gets unknownDevice first", stream: .motion,
            state: F.state(F.series7, authorization: .denied), registry: .closed, expected: .unknownDevice),
        .init(name: "open registry accepts an unknown id's hello", stream: .hello, state: nil, registry: DeviceRegistry(isOpen: true), expected: nil),
        .init(
            name: "open registry grants defaultEntitlements to unlisted ids", stream: .motion, state: F.state(F.series9),
            registry: DeviceRegistry(isOpen: true, defaultEntitlements: [.motionDevice]), expected: nil),
        .init(
            name: "open registry: a listed id gets only its own list, not the defaults", stream: .motion, state: F.state(F.series9),
            registry: F.registry([.pedometer], open: true, defaults: [.motionDevice]), expected: .notEntitled),
        // Control streams need the registry only.
        .init(name: "control: hello before any hello", stream: .hello, state: nil, registry: F.registry([]), expected: nil),
        .init(name: "control: status without hello", stream: .status, state: nil, registry: F.registry([]), expected: nil),
        .init(name: "control: authorization while denied", stream: .authorization, state: F.state(F.series9, authorization: .denied), registry: F.registry([]), expected: nil),
        .init(name: "control: workout from a model without batched sensors", stream: .workout, state: F.state(F.series7), registry: F.registry([]), expected: nil),
        // Availability.
        .init(name: "no hello → notAvailable", stream: .motion, state: nil, registry: F.registry(F.allWatch), expected: .notAvailable),
        .init(
            name: "authorization and workout seen but no hello → notAvailable", stream: .batchedDeviceMotion,
            state: F.state(nil, authorization: .authorized, workout: .running), registry: F.registry(F.allWatch), expected: .notAvailable),
        .init(name: "Series 7 sending batches → notAvailable", stream: .batchedAccelerometer, state: F.state(F.series7, workout: .running), registry: F.registry(F.allWatch), expected: .notAvailable),
        .init(
            name: "Series 8 on watchOS 9.6 sending batches → notAvailable (OS too old)", stream: .batchedDeviceMotion,
            state: F.state(F.series8OnWatchOS9, workout: .running), registry: F.registry(F.allWatch), expected: .notAvailable),
        .init(
            name: "Series 9 sending submersion → notAvailable", stream: .submersionMeasurement, state: F.state(F.series9),
            registry: F.registry([.submersionShallow]), expected: .notAvailable),
        .init(
            name: "Ultra on watchOS 8.7 sending submersion → notAvailable", stream: .submersionEvent,
            state: F.state(F.watch("Apple Watch Ultra", "8.7")), registry: F.registry([.submersionFull]), expected: .notAvailable),
        .init(
            name: "unknown model → notAvailable", stream: .motion, state: F.state(F.watch("Pixel Watch 2")),
            registry: F.registry(F.allWatch), expected: .notAvailable),
        .init(
            name: "unparseable OS version → notAvailable", stream: .motion, state: F.state(F.watch("Apple Watch Series 9", "10.1 beta")),
            registry: F.registry(F.allWatch), expected: .notAvailable),
        .init(
            name: "AirPods sending device motion → notAvailable", stream: .motion, state: F.state(F.airPods),
            registry: F.registry([.motionDevice, .motionHeadphone]), expected: .notAvailable),
        .init(
            name: "Series 2 altimeter → notAvailable (no barometer)", stream: .altimeter, state: F.state(F.watch("Apple Watch Series 2", "6.3")),
            registry: F.registry(F.allWatch), expected: .notAvailable),
        .init(
            name: "availability is checked before authorization", stream: .batchedAccelerometer,
            state: F.state(F.series7, authorization: .denied), registry: F.registry([]), expected: .notAvailable),
        // Authorization.
        .init(
            name: "denied → notAuthorized", stream: .motion, state: F.state(F.series9, authorization: .denied),
            registry: F.registry(F.allWatch), expected: .notAuthorized),
        .init(
            name: "denied in the hello → notAuthorized", stream: .pedometerData, state: F.state(F.watch("Apple Watch Series 9", authorization: .denied)),
            registry: F.registry(F.allWatch), expected: .notAuthorized),
        .init(
            name: "notDetermined → notAuthorized", stream: .altimeter, state: F.state(F.series9, authorization: .notDetermined),
            registry: F.registry(F.allWatch), expected: .notAuthorized),
        .init(
            name: "restricted → notAuthorized", stream: .recorderAccelerometer, state: F.state(F.series9, authorization: .restricted),
            registry: F.registry(F.allWatch), expected: .notAuthorized),
        .init(
            name: "a denied device without the entitlement gets notAuthorized before notEntitled", stream: .submersionMeasurement,
            state: F.state(F.ultra2, authorization: .denied), registry: F.registry([]), expected: .notAuthorized),
        // Entitlement.
        .init(
            name: "Ultra without a depth entitlement → notEntitled", stream: .submersionMeasurement, state: F.state(F.ultra2),
            registry: F.registry(F.allWatch), expected: .notEntitled),
        .init(
            name: "AirPods without motion.headphone → notEntitled", stream: .headphoneMotion, state: F.state(F.airPods),
            registry: F.registry([.motionDevice]), expected: .notEntitled),
        .init(
            name: "the entitlement is checked before the session", stream: .batchedAccelerometer, state: F.state(F.series9),
            registry: F.registry([.motionDevice]), expected: .notEntitled),
        .init(
            name: "pedometer events need the pedometer entitlement", stream: .pedometerEvent, state: F.state(F.iPhone),
            registry: F.registry([.motionDevice]), expected: .notEntitled),
        // Session.
        .init(
            name: "batches without any workout → noActiveWorkout", stream: .batchedAccelerometer, state: F.state(F.series9),
            registry: F.registry(F.allWatch), expected: .noActiveWorkout),
        .init(
            name: "batches while the workout is paused → noActiveWorkout", stream: .batchedDeviceMotion,
            state: F.state(F.series9, workout: .paused), registry: F.registry(F.allWatch), expected: .noActiveWorkout),
        .init(
            name: "batches after the workout ended → noActiveWorkout", stream: .batchedAccelerometer,
            state: F.state(F.ultra2, workout: .ended), registry: F.registry(F.allWatch), expected: .noActiveWorkout),
        // Allowed.
        .init(
            name: "batches during a running workout", stream: .batchedAccelerometer, state: F.state(F.series9, workout: .running),
            registry: F.registry(F.allWatch), expected: nil),
        .init(name: "device motion needs no workout", stream: .motion, state: F.state(F.series9), registry: F.registry(F.allWatch), expected: nil),
        .init(
            name: "AirPods head tracking", stream: .headphoneMotion, state: F.state(F.airPods), registry: F.registry([.motionHeadphone]), expected: nil),
        .init(
            name: "AirPods connection events", stream: .headphoneConnection, state: F.state(F.airPods), registry: F.registry([.motionHeadphone]),
            expected: nil),
        .init(
            name: "a phone streaming its connected AirPods", stream: .headphoneMotion,
            state: F.state(DeviceDescriptor(model: "iPhone 15 Pro", platform: "iOS", osVersion: "17.1", app: "a", authorization: .authorized, headphones: "AirPods Max")),
            registry: F.registry([.motionHeadphone]), expected: nil),
        .init(name: "iPhone pedometer events", stream: .pedometerEvent, state: F.state(F.iPhone), registry: F.registry([.pedometer]), expected: nil),
        .init(
            name: "re-authorized after a denial", stream: .motion, state: F.state(F.watch("Apple Watch Series 9", authorization: .denied), authorization: .authorized),
            registry: F.registry(F.allWatch), expected: nil),
        // Maximum depth.
        .init(
            name: "submersion.shallow → 6 m", stream: .submersionMeasurement, state: F.state(F.ultra2), registry: F.registry([.submersionShallow]),
            expected: nil, maximumDepth: 6),
        .init(
            name: "submersion.full → 40 m", stream: .submersionTemperature, state: F.state(F.ultra2), registry: F.registry([.submersionFull]),
            expected: nil, maximumDepth: 40),
        .init(
            name: "shallow and full granted → 40 m", stream: .submersionEvent, state: F.state(F.ultra2),
            registry: F.registry([.submersionShallow, .submersionFull]), expected: nil, maximumDepth: 40),
        .init(
            name: "no submersion entitlement → no maximum depth", stream: .motion, state: F.state(F.ultra2), registry: F.registry(F.allWatch),
            expected: nil, maximumDepth: nil),
    ]

    @Test("verdict", arguments: cases)
    func verdict(_ row: VerdictCase) {
        let verdict = AccessChecker.check(stream: row.stream, device: row.device, state: row.state, registry: row.registry, capabilities: F.table)
        if let expected = row.expected {
            #expect(verdict.code == expected, "\(verdict)")
            #expect(verdict.detail?.isEmpty == false)
        } else {
            #expect(verdict == .allowed(maximumDepth: row.maximumDepth))
        }
    }

    @Test("the table covers every check failure code")
    func everyCodeCovered() {
        let codes = Set(Self.cases.compactMap(\.expected))
        #expect(codes == [.unknownDevice, .notAvailable, .notAuthorized, .notEntitled, .noActiveWorkout])
    }

    @Test("every stream's requirement: control streams need the registry only; data streams their capability and entitlement")
    func requirements() {
        let control = InboundStream.allCases.filter { StreamRequirement.of($0).isControl }
        #expect(control == [.hello, .status, .authorization, .workout])
        let expected: [InboundStream: (Capability, Set<Entitlement>)] = [
            .headphoneConnection: (.headphoneMotion, [.motionHeadphone]), .headphoneMotion: (.headphoneMotion, [.motionHeadphone]),
            .motion: (.deviceMotion, [.motionDevice]),
            .batchedAccelerometer: (.batchedSensors, [.motionBatched]), .batchedDeviceMotion: (.batchedSensors, [.motionBatched]),
            .submersionEvent: (.waterSubmersion, [.submersionShallow, .submersionFull]),
            .submersionMeasurement: (.waterSubmersion, [.submersionShallow, .submersionFull]),
            .submersionTemperature: (.waterSubmersion, [.submersionShallow, .submersionFull]),
            .pedometerData: (.pedometer, [.pedometer]), .pedometerEvent: (.pedometerEvents, [.pedometer]),
            .altimeter: (.altimeter, [.altimeter]), .recorderAccelerometer: (.sensorRecorder, [.recorder]),
        ]
        for (stream, (capability, entitlements)) in expected {
            let requirement = StreamRequirement.of(stream)
            #expect(requirement.capability == capability, "\(stream)")
            #expect(requirement.entitlements == entitlements, "\(stream)")
            #expect(requirement.needsRunningWorkout == (stream == .batchedAccelerometer || stream == .batchedDeviceMotion), "\(stream)")
        }
    }

    @Test("a failure carries the contract's CMError raw value")
    func cmErrors() {
        let check = { (state: DeviceAccessState?, registry: DeviceRegistry, stream: InboundStream) in
            AccessChecker.check(stream: stream, device: F.id, state: state, registry: registry, capabilities: F.table)
        }
        #expect(check(nil, .closed, .motion).cmError == nil)
        #expect(check(F.state(F.series7), F.registry(F.allWatch), .batchedAccelerometer).cmError == .notAvailable)
        #expect(check(F.state(F.series9, authorization: .denied), F.registry(F.allWatch), .motion).cmError?.rawValue == 111)
        #expect(check(F.state(F.ultra2), F.registry([]), .submersionEvent).cmError?.rawValue == 110)
        #expect(check(F.state(F.series9), F.registry(F.allWatch), .batchedAccelerometer).cmError?.rawValue == 108)
        #expect(check(F.state(F.series9), F.registry(F.allWatch), .motion).cmError == nil)
    }

    @Test("details say precisely what is missing")
    func details() {
        func detail(_ state: DeviceAccessState?, _ registry: DeviceRegistry, _ stream: InboundStream, device: DeviceID = F.id) -> String {
            AccessChecker.check(stream: stream, device: device, state: state, registry: registry, capabilities: F.table).detail ?? "allowed"
        }
        #expect(
            detail(nil, .closed, .motion, device: DeviceID("watch-x")!)
                == "device 'watch-x' is not in the device registry, which is closed; list it under 'devices' or set 'open: true'")
        #expect(detail(nil, F.registry([]), .motion).hasPrefix("no hello: device 'dev-1' has sent no hello yet"))
        #expect(
            detail(F.state(F.series7), F.registry(F.allWatch), .batchedAccelerometer)
                == "Apple Watch Series 7 (watchOS 10.1) lacks batchedSensors: batched 800/200 Hz sensors (CMBatchedSensorManager) need "
                + "Apple Watch Series 8 or later or any Apple Watch Ultra with watchOS 10.0 or later")
        #expect(
            detail(F.state(F.series8OnWatchOS9), F.registry(F.allWatch), .batchedAccelerometer)
                == "Apple Watch Series 8 (watchOS 9.6) lacks batchedSensors: batched 800/200 Hz sensors (CMBatchedSensorManager) need watchOS 10.0 or later on this model")
        #expect(
            detail(F.state(F.watch("Pixel Watch 2")), F.registry(F.allWatch), .motion)
                .hasPrefix("Pixel Watch 2 (watchOS 10.1) lacks deviceMotion: model 'Pixel Watch 2' is not in the capability table; "))
        #expect(detail(F.state(F.watch("Apple Watch Series 9", "ten")), F.registry(F.allWatch), .motion).hasSuffix("osVersion 'ten' is not a dotted version number such as 10.1"))
        #expect(
            detail(F.state(DeviceDescriptor(model: "Apple Watch Ultra 2", platform: "iOS", osVersion: "17.0", app: "a", authorization: .authorized)), F.registry([.submersionFull]), .submersionEvent)
                .hasSuffix("on this model water submersion updates (CMWaterSubmersionManager) need watchOS, not iOS"))
        #expect(
            detail(F.state(F.series9, authorization: .denied), F.registry(F.allWatch), .motion)
                == "motion authorization is 'denied' (from the authorization frame dated 1700000100.0); data needs 'authorized'")
        #expect(
            detail(F.state(F.watch("Apple Watch Series 9", authorization: .restricted)), F.registry(F.allWatch), .motion)
                == "motion authorization is 'restricted' (from the hello); data needs 'authorized'")
        #expect(
            detail(F.state(F.ultra2), F.registry([.motionDevice, .pedometer]), .submersionMeasurement)
                == "the device registry does not grant submersion.full or submersion.shallow, which submersion/measurement needs (granted: motion.device, pedometer)")
        #expect(
            detail(F.state(F.ultra2), DeviceRegistry(isOpen: true), .submersionMeasurement, device: DeviceID("guest")!)
                .hasSuffix("(granted as an unlisted device of the open registry: none)"))
        #expect(
            detail(F.state(F.series9, workout: .ended), F.registry(F.allWatch), .batchedAccelerometer)
                == "batched/accelerometer needs a running workout session; the last workout frame says ended (tennis) at date 1700000200.0")
        #expect(
            detail(F.state(F.series9), F.registry(F.allWatch), .batchedDeviceMotion)
                == "batched/device-motion needs a running workout session; no workout frame was received")
    }
}
