import Testing

@testable import TelemetryCore

@Suite("Access control: per-shard tracking, availability snapshots and policy replacement")
struct AccessControlTests {
    typealias F = AccessFixtures

    private let ultra = DeviceID("watch-ultra-1")!
    private let buds = DeviceID("buds-1")!

    private func control(open: Bool = false, maxTracked: Int = 100) -> AccessControl {
        let registry = DeviceRegistry(
            isOpen: open, devices: [ultra: [.submersionShallow, .motionBatched, .motionDevice], buds: [.motionHeadphone]])
        return AccessControl(policy: AccessPolicy(registry: registry, capabilities: F.table), maxTrackedDevices: maxTracked)
    }

    @Test("a hello publishes the availability snapshot; data then passes with the maximum depth")
    func helloThenData() throws {
        var access = control()
        #expect(access.check(.submersionMeasurement, from: ultra).code == .notAvailable)
        let decision = access.admit(.hello, from: ultra, update: .hello(F.ultra2, retained: true), receivedAt: 1_700_000_000)
        #expect(decision.verdict == .allowed(maximumDepth: 6))
        let change = try #require(decision.availability)
        #expect(change.date == 1_700_000_000)
        #expect(change.snapshot.capabilities == [.altimeter, .batchedSensors, .deviceMotion, .pedometer, .pedometerEvents, .sensorRecorder, .waterSubmersion])
        #expect(change.snapshot.entitlements == [.motionBatched, .motionDevice, .submersionShallow])
        #expect(change.snapshot.maximumDepth == 6)
        #expect(access.admit(.submersionMeasurement, from: ultra, receivedAt: 1).verdict == .allowed(maximumDepth: 6))
        #expect(access.admit(.batchedAccelerometer, from: ultra, receivedAt: 1).verdict.code == .noActiveWorkout)
        let workout = access.admit(.workout, from: ultra, update: .workout(WorkoutEvent(state: .running, activityType: "tennis", date: 5)), receivedAt: 5)
        #expect(workout.availability == nil)  // the workout is not part of the snapshot
        #expect(access.check(.batchedAccelerometer, from: ultra).isAllowed)
        // The same hello again publishes nothing.
        #expect(access.admit(.hello, from: ultra, update: .hello(F.ultra2, retained: false), receivedAt: 2).availability == nil)
    }

    @Test("an authorization change republishes the snapshot; the same status does not")
    func authorizationRepublishes() throws {
        var access = control()
        _ = access.admit(.hello, from: buds, update: .hello(F.airPods, retained: false), receivedAt: 10)
        let denied = access.admit(.authorization, from: buds, update: .authorization(AuthorizationChange(status: .denied, date: 20)), receivedAt: 21)
        #expect(denied.verdict.isAllowed)
        #expect(try #require(denied.availability).snapshot.authorization == .denied)
        #expect(denied.availability?.date == 20)
        #expect(access.check(.headphoneMotion, from: buds).code == .notAuthorized)
        let again = access.admit(.authorization, from: buds, update: .authorization(AuthorizationChange(status: .denied, date: 30)), receivedAt: 31)
        #expect(again.availability == nil)
        let back = access.admit(.authorization, from: buds, update: .authorization(AuthorizationChange(status: .authorized, date: 40)), receivedAt: 41)
        #expect(back.availability?.snapshot.authorization == .authorized)
        #expect(access.check(.headphoneMotion, from: buds).isAllowed)
    }

    @Test("frames of unknown devices change nothing in a closed registry")
    func unknownDevicesLeaveNoState() {
        var access = control()
        let stranger = DeviceID("stranger")!
        let decision = access.admit(.hello, from: stranger, update: .hello(F.series9, retained: false), receivedAt: 1)
        #expect(decision.verdict.code == .unknownDevice)
        #expect(decision.availability == nil)
        #expect(access.state(of: stranger) == nil)
        #expect(access.trackedDeviceCount == 0)
    }

    @Test("an open registry tracks unlisted devices up to the bound")
    func trackingBound() {
        var access = control(open: true, maxTracked: 1)
        let first = DeviceID("guest-1")!
        let second = DeviceID("guest-2")!
        #expect(access.admit(.hello, from: first, update: .hello(F.series9, retained: false), receivedAt: 1).availability != nil)
        let untracked = access.admit(.hello, from: second, update: .hello(F.series9, retained: false), receivedAt: 1)
        #expect(untracked.verdict.isAllowed)
        #expect(untracked.availability == nil)
        #expect(access.trackedDeviceCount == 1)
        let verdict = access.check(.motion, from: second)
        #expect(verdict.code == .notAvailable)
        #expect(verdict.detail?.contains("maximum of 1 devices") == true)
    }

    @Test("replacing the policy keeps learnt state and returns only the changed snapshots")
    func replacePolicy() throws {
        var access = control()
        _ = access.admit(.hello, from: ultra, update: .hello(F.ultra2, retained: false), receivedAt: 1)
        _ = access.admit(.hello, from: buds, update: .hello(F.airPods, retained: false), receivedAt: 1)
        _ = access.admit(.workout, from: ultra, update: .workout(WorkoutEvent(state: .running, activityType: "diving", date: 2)), receivedAt: 2)

        // Ultra gains submersion.full; buds unchanged.
        var registry = access.policy.registry
        registry.devices[ultra] = [.submersionShallow, .submersionFull, .motionBatched, .motionDevice]
        let changes = access.replacePolicy(AccessPolicy(registry: registry, capabilities: F.table), date: 100)
        #expect(changes.map(\.snapshot.deviceId) == [ultra])
        #expect(changes.first?.snapshot.maximumDepth == 40)
        #expect(changes.first?.date == 100)
        #expect(access.check(.submersionMeasurement, from: ultra) == .allowed(maximumDepth: 40))
        #expect(access.check(.batchedAccelerometer, from: ultra).isAllowed)  // workout state kept

        // Same policy again: nothing to publish.
        #expect(access.replacePolicy(access.policy, date: 101).isEmpty)

        // A table without the headphone rule: buds lose the capability; the ultra is unaffected.
        let table = CapabilityTable(rules: F.table.rules.filter { !$0.capabilities.contains(.headphoneMotion) })
        let second = access.replacePolicy(AccessPolicy(registry: registry, capabilities: table), date: 102)
        #expect(second.map(\.snapshot.deviceId) == [buds])
        #expect(second.first?.snapshot.capabilities == [])
        #expect(access.check(.headphoneMotion, from: buds).code == .notAvailable)

        // Removing the ultra from the registry publishes it without entitlements and rejects its frames.
        registry.devices[ultra] = nil
        let third = access.replacePolicy(AccessPolicy(registry: registry, capabilities: table), date: 103)
        #expect(third.map(\.snapshot.deviceId) == [ultra])
        #expect(third.first?.snapshot.entitlements == [])
        #expect(third.first?.snapshot.maximumDepth == nil)
        #expect(access.check(.status, from: ultra).code == .unknownDevice)
    }

    @Test("the availability payload has the contract's fields")
    func payload() throws {
        let snapshot = AvailabilitySnapshot(
            deviceId: ultra, model: "Apple Watch Ultra 2", platform: "watchOS", osVersion: "10.1",
            capabilities: [.waterSubmersion, .deviceMotion], entitlements: [.submersionShallow, .motionDevice], authorization: .authorized)
        let message = snapshot.message(scheme: TopicScheme(), date: 1_700_000_000.5)
        #expect(message.topic == "gateway/watch-ultra-1/availability")
        #expect(message.retain)
        #expect(message.qos == .atLeastOnce)
        let json = message.payloadString
        #expect(json.hasPrefix(
            #"{"deviceId":"watch-ultra-1","model":"Apple Watch Ultra 2","platform":"watchOS","osVersion":"10.1","capabilities":["deviceMotion","waterSubmersion"],"entitlements":["motion.device","submersion.shallow"],"authorization":"authorized","rawValue":3,"maximumDepth":6,"date":1700000000.5,"eventId":""#))
        // Deterministic event ids: same input, same id; a different date, a different id.
        #expect(snapshot.payload(date: 1) == snapshot.payload(date: 1))
        #expect(snapshot.payload(date: 1) != snapshot.payload(date: 2))
        let plain = AvailabilitySnapshot(
            deviceId: buds, model: "AirPods Pro (2nd generation)", platform: "iOS", osVersion: "17.1", headphones: "AirPods Pro (2nd generation)",
            capabilities: [.headphoneMotion], entitlements: [], authorization: .denied)
        let text = String(decoding: plain.payload(date: 3), as: UTF8.self)
        #expect(text.contains(#""headphones":"AirPods Pro (2nd generation)","capabilities":["headphoneMotion"],"entitlements":[],"authorization":"denied","rawValue":2,"date":3,"#))
        #expect(!text.contains("maximumDepth"))
    }

    @Test("control streams other than hello, authorization and workout pass without updates")
    func statusPasses() {
        var access = control()
        #expect(access.admit(.status, from: ultra, receivedAt: 1).verdict == .allowed(maximumDepth: 6))
        #expect(access.trackedDeviceCount == 0)
    }
}
