import Testing
import TelemetryCore
import TelemetrySimulation

@Suite("Simulated physics")
struct PhysicsTests {
    private func samples(_ deviceId: String, _ stream: String) throws -> [PayloadJSON] {
        try GeneratedTraffic.frames(of: deviceId, stream).flatMap { try PayloadJSON($0.payload).children("samples") ?? [] }
    }

    @Test("rotation rate integrates to the attitude change (200 Hz device motion)", arguments: ["watch-s9-1", "watch-s9-2"])
    func rotationRateMatchesAttitude(deviceId: String) throws {
        let motion = try samples(deviceId, "batched/device-motion")
        #expect(motion.count > 1000)
        var worst = 0.0
        for (earlier, later) in zip(motion, motion.dropFirst()) {
            let t0 = try #require(earlier.number("timestamp")), t1 = try #require(later.number("timestamp"))
            let q0 = try #require(earlier.quaternion("attitude")), q1 = try #require(later.quaternion("attitude"))
            let w0 = try #require(earlier.vector("rotationRate")), w1 = try #require(later.vector("rotationRate"))
            var change = q1.multiplied(byInverseOf: q0)  // body-frame rotation over the interval
            if change.w < 0 { change = Quaternion(x: -change.x, y: -change.y, z: -change.z, w: -change.w) }
            let estimated = change.vector * (2 / (t1 - t0))
            let reported = (w0 + w1) * 0.5
            worst = max(worst, (estimated - reported).norm)
        }
        #expect(worst < 0.05, "largest disagreement \(worst) rad/s")
    }

    @Test("accelerometer and device motion describe the same motion (every 4th 800 Hz sample)")
    func accelerometerMatchesDeviceMotion() throws {
        let raw = try samples("watch-s9-2", "batched/accelerometer")
        let fused = try samples("watch-s9-2", "batched/device-motion")
        #expect(raw.count == fused.count * 4)
        var worst = 0.0
        for (index, motion) in fused.enumerated() {
            let accelerometer = raw[index * 4]
            #expect(accelerometer.number("timestamp") == motion.number("timestamp"))
            let total = try #require(motion.vector("gravity")) + (try #require(motion.vector("userAcceleration")))
            worst = max(worst, (try #require(accelerometer.vector("acceleration")) - total).norm)
        }
        #expect(worst < 0.08, "largest disagreement \(worst) g")
    }

    @Test("tennis swings reach SwingWatch's thresholds: > 5.5 rad/s about gravity")
    func tennisSwings() throws {
        let motion = try samples("watch-s9-1", "motion")
        let ratesAboutGravity = try motion.map {
            try #require($0.vector("rotationRate")).dot(try #require($0.vector("gravity")))
        }
        #expect((ratesAboutGravity.max() ?? 0) > 5.5)
        #expect((ratesAboutGravity.min() ?? 0) < -5.5)
    }

    @Test("baseball: bat contact shows as an impact spike in the 800 Hz accelerometer")
    func baseballImpacts() throws {
        let peaks = try samples("watch-s9-2", "batched/accelerometer").map { try #require($0.vector("acceleration")).norm }
        #expect((peaks.max() ?? 0) > 6)
        #expect((peaks.max() ?? 0) < 32)
        let diver = try samples("watch-ultra-1", "batched/accelerometer").map { try #require($0.vector("acceleration")).norm }
        #expect((diver.max() ?? 99) < 1.5, "a diver's wrist moves gently")
    }

    @Test("a dive visits every depth state, and readings follow Core Motion's rules")
    func diveProfile() throws {
        var ultra = SimulatedDevice.appleWatchUltra2(id: "diver")
        ultra.enabledStreams = ["submersion/event", "submersion/measurement", "submersion/temperature"]
        var generator = TrafficGenerator(seed: 5, devices: [ultra], startDate: 1_000)
        // Four dives of 96.8 s with a 6 m maximum (under at 10 s, surfaced at 76.8 s of each); the fifth starts after 397 s.
        let frames = generator.advance(to: 390)
        let measurements = try frames.filter { $0.stream == "submersion/measurement" }.map { try PayloadJSON($0.payload) }
        let states = Set(measurements.compactMap { $0.string("submersionState").flatMap(DepthState.init(wireValue:)) })
        #expect(states == [.notSubmerged, .submergedShallow, .submergedDeep, .approachingMaxDepth, .pastMaxDepth, .sensorDepthError])
        let depths = measurements.compactMap { $0.number("depth") }
        #expect((depths.max() ?? 0) <= 6.6 + 0.1)
        for measurement in measurements {
            if let depth = measurement.number("depth"), let pressure = measurement.number("pressure"),
                let surface = measurement.number("surfacePressure")
            {
                // 1025 kg/m³ · 9.80665 m/s² ≈ 10.05 kPa per m.
                #expect(isClose((pressure - surface) / depth, 10.052, tolerance: 0.2) || depth < 0.05)
            }
        }

        let events = try frames.filter { $0.stream == "submersion/event" }.map { try PayloadJSON($0.payload) }
        let eventStates = events.compactMap { $0.string("state") }
        #expect(eventStates.count == 9)
        #expect(eventStates.enumerated().allSatisfy { $1 == ($0 % 2 == 0 ? "notSubmerged" : "submerged") })
        let eventDates = events.compactMap { $0.number("date") }
        let temperatures = try frames.filter { $0.stream == "submersion/temperature" }.map { try PayloadJSON($0.payload) }
        #expect(temperatures.count > 300)
        for temperature in temperatures {
            let date = try #require(temperature.number("date"))
            let lastEvent = eventDates.lastIndex { $0 <= date }
            #expect(lastEvent.map { $0 % 2 == 1 } == true, "temperature only while submerged")
        }
    }
}
