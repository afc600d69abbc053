import Testing
import TelemetrySimulation

@testable import TelemetryCore

/// The simulator's fleets against a registry mirroring `config/devices.yml` and the reference
/// capability table: the mixed fleet passes every check; each rule breaker fails exactly the
/// intended check. (The gateway tests check that the shipped devices.yml lists these ids.)
@Suite("Access: simulator fleets and rule breakers")
struct AccessRuleBreakerTests {
    typealias F = AccessFixtures

    static let mixedIds = [
        "watch-ultra-1", "watch-s9-1", "buds-1", "watch-s9-2", "phone-1", "watch-ultra-2", "watch-s9-3", "buds-2", "watch-s9-4", "phone-2",
    ]

    /// The entitlements `config/devices.yml` grants.
    static let registry: DeviceRegistry = {
        let ultra: Set<Entitlement> = [.submersionShallow, .motionBatched, .motionDevice, .pedometer, .altimeter, .recorder]
        let watch: Set<Entitlement> = [.motionBatched, .motionDevice, .pedometer, .altimeter, .recorder]
        var devices: [String: Set<Entitlement>] = [
            "watch-ultra-1": ultra, "watch-ultra-2": ultra,
            "buds-1": [.motionHeadphone], "buds-2": [.motionHeadphone],
            "phone-1": [.motionDevice, .pedometer, .altimeter], "phone-2": [.motionDevice, .pedometer, .altimeter],
            "watch-s7-1": watch, "watch-denied-1": watch, "watch-nodepth-1": watch, "watch-noworkout-1": watch,
        ]
        for number in 1...4 { devices["watch-s9-\(number)"] = watch }
        return DeviceRegistry(devices: Dictionary(uniqueKeysWithValues: devices.map { (DeviceID($0.key)!, $0.value) }))
    }()

    /// Feeds a device's control frames as the simulator publishes them, then checks every stream it publishes.
    static func verdicts(_ device: SimulatedDevice) -> [String: GatewayErrorCode?] {
        let id = DeviceID(device.id)!
        var access = AccessControl(policy: AccessPolicy(registry: registry, capabilities: F.table))
        let date = 1_700_000_000.0
        var result: [String: GatewayErrorCode?] = [:]
        for path in device.streams {
            let stream = InboundStream(path: path)!
            let update: AccessUpdate? =
                switch stream {
                case .hello: .hello(device.descriptor, retained: true)
                case .authorization: .authorization(AuthorizationChange(status: device.descriptor.authorization, date: date))
                case .workout: .workout(WorkoutEvent(state: .running, activityType: device.activity.workoutActivityType, date: date))
                default: nil
                }
            result[path] = access.admit(stream, from: id, update: update, receivedAt: date).verdict.code
        }
        return result
    }

    @Test("the mixed fleet's ids are the ones config/devices.yml lists")
    func mixedIds() {
        #expect(SimulatedFleet.mixed(count: 10).map(\.id) == Self.mixedIds)
        #expect(SimulatedFleet.ruleBreakers().map(\.id) == ["watch-s7-1", "watch-denied-1", "watch-nodepth-1", "watch-noworkout-1", "watch-unlisted-1"])
    }

    @Test("every stream of the mixed fleet passes", arguments: SimulatedFleet.mixed(count: 10))
    func mixedFleetPasses(_ device: SimulatedDevice) {
        let failures = Self.verdicts(device).filter { $0.value != nil }
        #expect(failures.isEmpty, "\(device.id): \(failures)")
    }

    @Test("each rule breaker fails exactly the intended check")
    func ruleBreakers() throws {
        let devices = Dictionary(uniqueKeysWithValues: SimulatedFleet.ruleBreakers().map { ($0.id, $0) })
        func failures(_ id: String) throws -> [String: GatewayErrorCode] {
            let device = try #require(devices[id])
            return Self.verdicts(device).compactMapValues { $0 }
        }
        let batched = ["batched/accelerometer", "batched/device-motion"]
        #expect(try failures("watch-s7-1") == Dictionary(uniqueKeysWithValues: batched.map { ($0, .notAvailable) }))
        #expect(try failures("watch-noworkout-1") == Dictionary(uniqueKeysWithValues: batched.map { ($0, .noActiveWorkout) }))
        let submersion = ["submersion/event", "submersion/measurement", "submersion/temperature"]
        #expect(try failures("watch-nodepth-1") == Dictionary(uniqueKeysWithValues: submersion.map { ($0, .notEntitled) }))

        let denied = try #require(devices["watch-denied-1"])
        let dataStreams = denied.streams.filter { !StreamRequirement.of(InboundStream(path: $0)!).isControl }
        #expect(try failures("watch-denied-1") == Dictionary(uniqueKeysWithValues: dataStreams.map { ($0, .notAuthorized) }))

        let unlisted = try #require(devices["watch-unlisted-1"])
        #expect(try failures("watch-unlisted-1") == Dictionary(uniqueKeysWithValues: unlisted.streams.map { ($0, .unknownDevice) }))
    }

    @Test("the rule breakers' traffic: the Series 7 says Series 7, the denied watch says denied, no workout frames without a workout")
    func presets() {
        let breakers = SimulatedFleet.ruleBreakers()
        #expect(breakers[0].descriptor.model == "Apple Watch Series 7")
        #expect(breakers[0].streams.contains("batched/accelerometer"))
        #expect(breakers[1].descriptor.authorization == .denied)
        #expect(!breakers[3].streams.contains("workout"))
        #expect(breakers[3].streams.contains("batched/device-motion"))
        var generator = TrafficGenerator(seed: 1, devices: breakers, startDate: 1_700_000_000)
        let frames = generator.advance(to: 2)
        #expect(!frames.contains { $0.deviceId == "watch-noworkout-1" && $0.stream == "workout" })
        #expect(frames.contains { $0.deviceId == "watch-noworkout-1" && $0.stream == "batched/accelerometer" })
        let authorization = frames.first { $0.deviceId == "watch-denied-1" && $0.stream == "authorization" }
        #expect(authorization.map { String(decoding: $0.payload, as: UTF8.self).contains(#""status":"denied""#) } == true)
    }
}
