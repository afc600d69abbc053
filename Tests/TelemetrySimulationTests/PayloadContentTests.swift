import Testing
import TelemetryCore
import TelemetrySimulation

@Suite("Simulated payloads: contract fields and physical bounds")
struct PayloadContentTests {
    private let down = Vector3(x: 0, y: 0, z: -1)
    private var dateRange: ClosedRange<Double> {
        GeneratedTraffic.startDate...(GeneratedTraffic.startDate + GeneratedTraffic.duration + 1)
    }

    /// Checks one DeviceMotion sample; returns its timestamp.
    private func checkDeviceMotion(_ sample: PayloadJSON, stream: String, deviceId: String) throws -> Double {
        let context = Comment(rawValue: "\(deviceId) \(stream)")
        let timestamp = try #require(sample.number("timestamp"), context)
        let attitude = try #require(sample.quaternion("attitude"), context)
        let rotationRate = try #require(sample.vector("rotationRate"), context)
        let gravity = try #require(sample.vector("gravity"), context)
        let userAcceleration = try #require(sample.vector("userAcceleration"), context)
        #expect(abs(attitude.norm - 1) <= 0.01, context)
        #expect(rotationRate.norm <= 50, context)
        #expect(abs(gravity.norm - 1) <= 0.01, context)
        #expect((gravity + userAcceleration).norm <= 64, context)
        // Gravity is the reference frame's down seen from the device: q⁻¹ ⊗ (0,0,−1) ⊗ q.
        #expect(isClose(attitude.conjugate.rotate(down), gravity, tolerance: 1e-4), context)
        let location = try #require(sample.string("sensorLocation").flatMap(SensorLocation.init(wireValue:)), context)
        if stream == "headphone/motion" {
            #expect(location != .default, context)
            #expect(!sample.has("magneticField") && !sample.has("heading"), context)
        } else {
            #expect(location == .default, context)
        }
        if stream == "motion" {
            let field = try #require(sample.vector("magneticField"), context)
            #expect((20...80).contains(field.norm), context)
            #expect(sample.child("magneticField")?.string("accuracy").flatMap(CalibrationAccuracy.init(wireValue:)) == .high)
            let heading = try #require(sample.number("heading"), context)
            #expect(heading >= 0 && heading < 360, context)
        }
        return timestamp
    }

    @Test("sample streams: contract fields, bounds, increasing timestamps at the stream's rate")
    func sampleStreams() throws {
        let periods = [
            "batched/accelerometer": 1.0 / 800, "batched/device-motion": 1.0 / 200, "motion": 1.0 / 50,
            "headphone/motion": 1.0 / 25, "recorder/accelerometer": 1.0 / 50,
        ]
        for device in GeneratedTraffic.devices {
            for (stream, period) in periods where device.streams.contains(stream) {
                var previous = -Double.infinity
                var previousIdentifier = 0.0
                for frame in GeneratedTraffic.frames(of: device.id, stream) {
                    let payload = try PayloadJSON(frame.payload)
                    let samples = try #require(payload.children("samples"))
                    for sample in samples {
                        let timestamp: Double
                        if stream.hasSuffix("accelerometer") {
                            timestamp = try #require(sample.number("timestamp"))
                            let acceleration = try #require(sample.vector("acceleration"))
                            #expect(acceleration.norm <= 64)
                            #expect(acceleration.norm > 0.3, "a worn device feels gravity")
                        } else {
                            timestamp = try checkDeviceMotion(sample, stream: stream, deviceId: device.id)
                        }
                        if stream == "recorder/accelerometer" {
                            let startDate = try #require(sample.number("startDate"))
                            #expect(dateRange.contains(startDate))
                        }
                        if previous > -Double.infinity {
                            #expect(isClose(timestamp - previous, period, tolerance: 2e-6), "\(device.id) \(stream)")
                        }
                        previous = timestamp
                    }
                    if stream == "recorder/accelerometer" {
                        let identifier = try #require(payload.number("identifier"))
                        #expect(identifier > previousIdentifier)
                        previousIdentifier = identifier
                    }
                }
                // Seconds since boot: positive, and not a Unix date.
                #expect(previous > 0 && previous < 1e7, "\(device.id) \(stream)")
            }
        }
    }

    @Test("event and state payloads carry the contract fields")
    func eventPayloads() throws {
        for frame in GeneratedTraffic.frames {
            let payload = try PayloadJSON(frame.payload)
            let context = Comment(rawValue: "\(frame.deviceId) \(frame.stream)")
            switch frame.stream {
            case "hello":
                for key in ["model", "platform", "osVersion", "app"] { #expect(payload.string(key)?.isEmpty == false, context) }
                #expect(payload.string("authorization").flatMap(AuthorizationStatus.init(wireValue:)) == .authorized)
            case "status":
                #expect(payload.string("state") == "online")
                #expect(payload.number("date").map(dateRange.contains) == true)
            case "authorization":
                #expect(payload.string("status") == "authorized")
                #expect(payload.number("date").map(dateRange.contains) == true)
            case "workout":
                #expect(payload.string("state").flatMap(WorkoutState.init(wireValue:)) == .running)
                #expect(["underwaterDiving", "tennis", "baseball"].contains(payload.string("activityType") ?? ""), context)
                #expect(payload.number("date").map(dateRange.contains) == true)
            case "headphone/connection":
                #expect(payload.string("event") == "connected")
                #expect(payload.number("date").map(dateRange.contains) == true)
            case "submersion/event":
                #expect(payload.string("state").flatMap(WaterSubmersionState.init(wireValue:)) != nil)
                #expect(payload.number("date").map(dateRange.contains) == true)
            case "submersion/measurement":
                let state = try #require(payload.string("submersionState").flatMap(DepthState.init(wireValue:)))
                #expect(payload.number("date").map(dateRange.contains) == true)
                #expect(payload.number("surfacePressure").map { (0...3000).contains($0) } == true)
                let hasReading = state != .notSubmerged && state != .sensorDepthError
                #expect(payload.has("depth") == hasReading && payload.has("pressure") == hasReading, context)
                if let depth = payload.number("depth") { #expect((-1...200).contains(depth)) }
                if let pressure = payload.number("pressure") { #expect((0...3000).contains(pressure)) }
            case "submersion/temperature":
                #expect(payload.number("temperature").map { (-5...60).contains($0) } == true)
                #expect(payload.number("temperatureUncertainty").map { (0...10).contains($0) } == true)
                #expect(payload.number("date").map(dateRange.contains) == true)
            case "pedometer/data":
                let start = try #require(payload.number("startDate"))
                let end = try #require(payload.number("endDate"))
                #expect(dateRange.contains(start) && start <= end && dateRange.contains(end))
                let steps = try #require(payload.number("numberOfSteps"))
                #expect(steps >= 0 && steps == steps.rounded())
                #expect(payload.number("distance").map { $0 >= 0 } == true)
                #expect(payload.number("floorsAscended").map { $0 >= 0 } == true)
                if let cadence = payload.number("currentCadence") { #expect((0...5).contains(cadence)) }
                if let pace = payload.number("currentPace") { #expect((0...60).contains(pace)) }
            case "pedometer/event":
                #expect(payload.string("type").flatMap(PedometerEventType.init(wireValue:)) != nil)
                #expect(payload.number("date").map(dateRange.contains) == true)
            case "altimeter":
                #expect(payload.number("timestamp").map { $0 > 0 } == true)
                #expect(payload.number("relativeAltitude").map { abs($0) < 100 } == true)
                #expect(payload.number("pressure").map { (80...110).contains($0) } == true)
            default:
                #expect(payload.has("samples"), context)
            }
        }
    }

    @Test("events alternate: submersion notSubmerged → submerged; pedometer pause → resume")
    func eventOrder() throws {
        let submersion = try GeneratedTraffic.frames(of: "watch-ultra-1", "submersion/event").map {
            try PayloadJSON($0.payload).string("state")
        }
        #expect(submersion == ["notSubmerged", "submerged"])
        let pedometer = try GeneratedTraffic.frames(of: "watch-s9-1", "pedometer/event").map {
            try PayloadJSON($0.payload).string("type")
        }
        #expect(pedometer == ["pause", "resume"])
    }

    @Test("cumulative pedometer data never decreases and stalls while paused")
    func pedometerIsCumulative() throws {
        let data = try GeneratedTraffic.frames(of: "phone-1", "pedometer/data").map { try PayloadJSON($0.payload) }
        let steps = data.compactMap { $0.number("numberOfSteps") }
        #expect(steps.count == data.count)
        #expect(zip(steps, steps.dropFirst()).allSatisfy { $0 <= $1 })
        #expect((steps.last ?? 0) > 30)  // walking ≈ 1.8 steps/s
        #expect(data.contains { !$0.has("currentCadence") }, "no cadence while paused")
        #expect(Set(data.compactMap { $0.number("startDate") }).count == 1)
    }
}
