import BrokerTestSupport
import Foundation
import MQTTTransport
import TelemetryCore
import TelemetryGateway
import TelemetrySimulation
import Testing

/// Where real devices differ from the simulator (issue 16), end to end through a real broker:
/// workout state changes without an activity type, the last batch arriving after the end,
/// pedometer events without a workout, long recorder queries, a stall of the head pose stream,
/// a watch that does not say its wrist.
@Suite("Core Motion fidelity through a real broker")
struct CoreMotionFidelityTests {
    static let startDate = 1_700_000_000.0

    static func message(_ id: String, _ stream: String, _ payload: [UInt8], retain: Bool = false) -> MQTTMessage {
        MQTTMessage(
            topic: "wearables/\(id)/\(stream)", payload: payload, qos: .atLeastOnce, retain: retain, properties: .init(contentType: "application/json"))
    }

    static func message(_ id: String, _ stream: String, _ text: String) -> MQTTMessage { message(id, stream, Array(text.utf8)) }

    static func watch(wrist: WristLocation?, model: String = "Apple Watch Series 9") -> DeviceDescriptor {
        DeviceDescriptor(
            model: model, platform: "watchOS", osVersion: "10.1", app: "com.example.fidelity", authorization: .authorized, wristLocation: wrist)
    }

    /// Says hello and waits for the gateway to have taken it (its availability).
    static func hello(_ id: String, _ descriptor: DeviceDescriptor, device: MQTTClient, run: GatewayRun) async throws {
        try await device.send(message(id, "hello", FrameEncoder.encode(descriptor), retain: true))
        try await run.collector.wait("availability of \(id)") { $0.contains { $0.topic == "gateway/\(id)/availability" } }
    }

    static func message(_ frame: SwingScenario.Batch, _ id: String) -> MQTTMessage {
        switch frame {
        case .accelerometer(let batch): message(id, "batched/accelerometer", FrameEncoder.encode(batch))
        case .deviceMotion(let batch): message(id, "batched/device-motion", FrameEncoder.encode(batch))
        }
    }

    static func errors(_ id: String, in messages: [MQTTMessage]) throws -> [[String: Any]] {
        try messages.filter { $0.topic == "gateway/\(id)/errors" }.map(json)
    }

    // MARK: Workout end (items 1 and 2)

    @Test("a swing completed by the batch arriving 0.2 s after a typeless `ended` is published, and nothing is refused")
    func lastBatchAfterEnd() async throws {
        let broker = try await TestBroker.started()
        var configuration = try GatewayHarness.configuration(broker: broker)
        // The grace is measured where the gateway receives the frames. With the default 2 s this
        // test passed alone and under extra CPU load, but failed in 3 of 4 runs of the whole
        // suite (all 16 batches accepted, no swing): consistent with the 0.2 s between sending
        // the end and the last batch stretching past 2 s at receipt, so that the session had
        // finished (and emptied the swing window) first. A 10 s grace keeps this test about the
        // rule, not the scheduler; the default 2 s, its exact limit and the 3 s refusal are
        // tested in WorkoutEndGraceTests, SwingDeriverTests and below.
        configuration.derivation.sessionEndGrace = 10
        let run = try await GatewayRun.start(broker, configuration: configuration)
        let id = "watch-s9-late"
        let scenario = SwingScenario(seed: 1_616, actions: [.idle(seconds: 1), .swing(contact: true), .idle(seconds: 1)])
        let truth = try #require(scenario.groundTruth.first { $0.shouldPublish })
        let impact = try #require(truth.impactTimestamp)
        let frames = scenario.arrivals
        // The accelerometer batch holding the impact, and all after it, come after the end.
        let late = try #require(frames.firstIndex { frame in
            if case .accelerometer(let batch) = frame { return batch.samples.last!.timestamp >= impact }
            return false
        })

        let device = try await TestClients.connected(try TestClients.configuration(broker))
        try await Self.hello(id, Self.watch(wrist: .right), device: device, run: run)
        try await device.send(Self.message(id, "workout", FrameEncoder.encode(WorkoutEvent(state: .running, activityType: "baseball", date: Self.startDate))))
        for frame in frames[..<late] { try await device.send(Self.message(frame, id)) }
        // Encoded beforehand, so that on a loaded machine the late batches still leave 0.2 s
        // after the end, not after seconds of JSON encoding.
        let lateMessages = frames[late...].map { Self.message($0, id) }
        // HKWorkoutSession's state change: a state and a date, no activity type.
        try await device.send(Self.message(id, "workout", #"{"state":"ended","date":\#(Self.startDate + 30)}"#))
        #expect(await device.flush(timeout: 30))
        // The device's own delay, not synchronisation: its last batch is sent 0.2 s after the end.
        try await Task.sleep(for: .milliseconds(200))
        for message in lateMessages { try await device.send(message) }
        #expect(await device.flush(timeout: 30))

        let received: [MQTTMessage]
        do {
            received = try await run.collector.wait(timeout: 120, "the swing") { $0.contains { $0.topic == "gateway/\(id)/swing" } }
        } catch {
            // Say what the gateway did with the frames (accepted, rejected, swing candidates).
            let metrics = PrometheusText.latest(in: run.collector.messages)?.text ?? ""
            let lines = metrics.split(separator: "\n").filter { $0.contains("batched") || $0.contains("workout") || $0.contains("swing") }
            Issue.record("no swing; gateway metrics: \(lines.joined(separator: "; "))")
            throw error
        }
        let swing = try json(try #require(received.first { $0.topic == "gateway/\(id)/swing" }))
        #expect(swing["contact"] as? Bool == true, "the impact arrived with the late batch")
        #expect(abs((swing["impactTimestamp"] as? Double ?? 0) - impact) < 0.002)
        #expect(abs((swing["timeToContact"] as? Double ?? 0) - (truth.timeToContact ?? 0)) < 0.005)
        try await run.waitForMetric("gateway_frames_accepted_total", labels: ["stream": "batched/accelerometer"], atLeast: 1)
        let final = try await run.stopAndCollect()
        #expect(try Self.errors(id, in: final).isEmpty, "the typeless end and the late batches are all accepted")
        #expect(final.filter { $0.topic == "gateway/\(id)/swing" }.count == 1)
        await device.shutdown()
        await run.observer.shutdown()
    }

    @Test("`ended` without activityType is accepted and ends the session: a batch 3 s later fails with noActiveWorkout")
    func batchAfterGrace() async throws {
        let broker = try await TestBroker.started()
        // The gateway's clock stands still until the test moves it: "3 s later" is said, not slept.
        let clock = ManualGatewayClock(wallTime: Self.startDate)
        let run = try await GatewayRun.start(broker, configuration: try GatewayHarness.configuration(broker: broker), clock: clock)
        let id = "watch-s9-ended"
        let device = try await TestClients.connected(try TestClients.configuration(broker))
        try await Self.hello(id, Self.watch(wrist: .left), device: device, run: run)
        try await device.send(Self.message(id, "workout", FrameEncoder.encode(WorkoutEvent(state: .running, activityType: "baseball", date: Self.startDate))))
        // Boot at startDate − 5000: one batch while running anchors the device's clock.
        try await device.send(Self.message(id, "batched/accelerometer", FrameEncoder.encode(Self.restingBatch(from: 5_000))))
        try await device.send(Self.message(id, "workout", #"{"state":"ended","date":\#(Self.startDate + 10)}"#))
        #expect(await device.flush(timeout: 30))
        // The condition under test is time on the gateway's clock: 3 s past the end, 1 s past the grace.
        // Moved only once the gateway has processed the end (both workout frames counted), so
        // the end is received at the start time and the batch 3 s after it. Read in the registry:
        // the metrics publishing timer runs on the manual clock too.
        try await run.waitForRegisteredMetric("gateway_frames_accepted_total", labels: ["stream": "workout"], atLeast: 2)
        clock.advance(by: 3)
        // Samples from after the end (timestamp 5020 ≈ startDate + 20).
        try await device.send(Self.message(id, "batched/accelerometer", FrameEncoder.encode(Self.restingBatch(from: 5_020))))
        let received = try await run.collector.wait(timeout: 120, "noActiveWorkout") { messages in
            messages.contains { $0.topic == "gateway/\(id)/errors" && $0.payloadString.contains("noActiveWorkout") }
        }
        let errors = try Self.errors(id, in: received)
        #expect(errors.count == 1, "only the late batch is refused, not the typeless end: \(errors)")
        #expect(errors.first?["stream"] as? String == "batched/accelerometer")
        #expect(errors.first?["cmError"] as? Int == 108)
        await device.shutdown()
        try await run.stop()
    }

    // MARK: Run segments without a workout (item 3)

    @Test("pedometer events and data without a workout (an iPhone app) give their segments, without a summary")
    func segmentsWithoutWorkout() async throws {
        let broker = try await TestBroker.started()
        let run = try await GatewayRun.start(broker)
        let id = "phone-trail-1"
        let phone = DeviceDescriptor(model: "iPhone 15 Pro", platform: "iOS", osVersion: "17.1", app: "com.example.trail", authorization: .authorized)
        let device = try await TestClients.connected(try TestClients.configuration(broker))
        try await Self.hello(id, phone, device: device, run: run)
        let t0 = Self.startDate
        func data(_ end: Double, _ steps: Int, _ distance: Double) -> MQTTMessage {
            Self.message(id, "pedometer/data", FrameEncoder.encode(PedometerData(startDate: t0, endDate: end, numberOfSteps: steps, distance: distance)))
        }
        func event(_ date: Double, _ type: PedometerEventType) -> MQTTMessage {
            Self.message(id, "pedometer/event", FrameEncoder.encode(PedometerEvent(date: date, type: type)))
        }
        for message in [
            data(t0, 0, 0), event(t0, .resume), data(t0 + 60, 160, 170), event(t0 + 60, .pause), event(t0 + 90, .resume),
            data(t0 + 150, 320, 340), event(t0 + 150, .pause),
        ] {
            try await device.send(message)
        }
        #expect(await device.flush(timeout: 30))
        let received = try await run.collector.wait(timeout: 120, "2 segments") { messages in
            messages.filter { $0.topic == "gateway/\(id)/pedometer/segment" }.count >= 2
        }
        let segments = try received.filter { $0.topic == "gateway/\(id)/pedometer/segment" }.map(json)
        #expect(segments.map { $0["startDate"] as? Double } == [t0, t0 + 90])
        #expect(segments.map { $0["endDate"] as? Double } == [t0 + 60, t0 + 150])
        #expect(segments.map { $0["activeDuration"] as? Double } == [60, 60])
        #expect(segments.map { $0["steps"] as? Int } == [160, 107])
        #expect(segments.map { $0["workoutStartDate"] as? Double } == [t0, t0])
        let final = try await run.stopAndCollect()
        #expect(!final.contains { $0.topic == "gateway/\(id)/pedometer/workout" }, "no workout, no summary")
        #expect(try Self.errors(id, in: final).isEmpty)
        await device.shutdown()
        await run.observer.shutdown()
    }

    // MARK: Recorder (item 4)

    @Test("a 30 h recorder query returns what is stored over the whole range")
    func thirtyHourQuery() async throws {
        let broker = try await TestBroker.started()
        let run = try await GatewayRun.start(broker)
        let id = "watch-rec-30h"
        let now = Date().timeIntervalSince1970.rounded(.down)
        // Two stretches 29 h apart, both inside the 36 h retention window.
        let early = Self.recorded(identifier: 7, from: now - 29.5 * 3600, count: 100)
        let late = Self.recorded(identifier: 8, from: now - 0.5 * 3600, count: 100)
        let device = try await TestClients.connected(try TestClients.configuration(broker))
        try await Self.hello(id, Self.watch(wrist: .left), device: device, run: run)
        for chunk in [early, late] {
            var writer = JSONWriter()
            chunk.write(to: &writer)
            try await device.send(Self.message(id, "recorder/accelerometer", writer.bytes))
        }
        #expect(await device.flush(timeout: 30))
        try await run.waitForMetric("gateway_frames_accepted_total", labels: ["stream": "recorder/accelerometer"], atLeast: 2)

        let requester = try await RecorderRequester.connect(broker)
        let from = now - 30 * 3600
        let answers = try await requester.ask(id, #"{"from":\#(from),"to":\#(from + 30 * 3600)}"#, correlation: "30h")
        let objects = answers.map(RecorderRequester.object)
        #expect(!objects.contains { $0["error"] != nil }, "\(objects)")
        let final = try #require(objects.last)
        #expect(final["final"] as? Bool == true)
        #expect(final["count"] as? Int == 200, "both stretches, 29 h apart")
        let dates = objects.flatMap { ($0["samples"] as? [[String: Any]]) ?? [] }.compactMap { $0["startDate"] as? Double }
        #expect(dates == (early.samples + late.samples).map(\.startDate))
        await requester.shutdown()
        await device.shutdown()
        try await run.stop()
    }

    /// `count` recorded 50 Hz samples from `date`.
    static func recorded(identifier: UInt64, from date: Double, count: Int) -> RecordedAccelerometerChunk {
        let bootTimestamp = 1_000 + date.truncatingRemainder(dividingBy: 100_000)
        var samples: [RecordedAccelerometerSample] = []
        for index in 0..<count {
            let offset = Double(index) * 0.02
            let acceleration = Vector3(x: Double(index) / 1_000, y: 0, z: -1)
            samples.append(RecordedAccelerometerSample(timestamp: bootTimestamp + offset, startDate: date + offset, acceleration: acceleration))
        }
        return RecordedAccelerometerChunk(identifier: identifier, samples: samples)
    }

    // MARK: Tennis without a wrist (item 6)

    @Test("strokes of a watch whose hello has no wristLocation are published as unknown, rotation kept, counted apart")
    func strokesWithoutWrist() async throws {
        let broker = try await TestBroker.started()
        let run = try await GatewayRun.start(broker)
        let id = "watch-s9-nowrist"
        let sequence: [TennisStrokeKind] = [.forehand, .backhand, .forehand]
        let rally = TennisRallyScenario(seed: 1_606, wrist: .right, sequence: sequence)
        let device = try await TestClients.connected(try TestClients.configuration(broker))
        try await Self.hello(id, Self.watch(wrist: nil), device: device, run: run)
        try await device.send(Self.message(id, "workout", FrameEncoder.encode(WorkoutEvent(state: .running, activityType: "tennis", date: Self.startDate))))
        for frame in rally.frames { try await device.send(Self.message(id, "motion", FrameEncoder.encode(frame))) }
        #expect(await device.flush(timeout: 30))
        let received = try await run.collector.wait(timeout: 120, "3 strokes") { messages in
            messages.filter { $0.topic == "gateway/\(id)/tennis/stroke" }.count >= 3
        }
        let strokes = try received.filter { $0.topic == "gateway/\(id)/tennis/stroke" }.map(json)
        #expect(strokes.map { $0["stroke"] as? String } == ["unknown", "unknown", "unknown"])
        // Right wrist: a forehand turns counter-clockwise seen from above.
        #expect(strokes.map { $0["rotation"] as? String } == ["counterclockwise", "clockwise", "counterclockwise"])
        #expect(strokes.map { $0["unknownCount"] as? Int } == [1, 2, 3])
        #expect(strokes.allSatisfy { $0["forehandCount"] as? Int == 0 && $0["backhandCount"] as? Int == 0 })
        try await run.waitForMetric("gateway_tennis_strokes_total", labels: ["stroke": "unknown"], atLeast: 3)
        await device.shutdown()
        try await run.stop()
    }

    // MARK: Submersion (item 7)

    @Test("a dive whose notSubmerged event is lost ends after the surface timeout; depth states carry the watch's deviceState")
    func lostSurfacingEvent() async throws {
        let broker = try await TestBroker.started()
        let run = try await GatewayRun.start(broker)
        let id = "watch-ultra-lost"
        let device = try await TestClients.connected(try TestClients.configuration(broker))
        try await Self.hello(id, Self.watch(wrist: .left, model: "Apple Watch Ultra 2"), device: device, run: run)
        let t0 = Self.startDate
        func measurement(_ date: Double, depth: Double?, state: DepthState) -> MQTTMessage {
            Self.message(
                id, "submersion/measurement",
                FrameEncoder.encode(SubmersionMeasurement(date: date, depth: depth, pressure: nil, surfacePressure: 101.3, submersionState: state)))
        }
        try await device.send(Self.message(id, "submersion/event", FrameEncoder.encode(SubmersionEvent(date: t0, state: .submerged))))
        for step in 1...10 { try await device.send(measurement(t0 + Double(step), depth: 0.5 + Double(step) * 0.3, state: .submergedShallow)) }
        // Surfaced: the watch reports notSubmerged measurements (no depth), but its event is lost.
        for step in 0...20 { try await device.send(measurement(t0 + 40 + Double(step) * 3, depth: nil, state: .notSubmerged)) }
        #expect(await device.flush(timeout: 30))
        let received = try await run.collector.wait(timeout: 120, "the dive summary") { $0.contains { $0.topic == "gateway/\(id)/submersion/dive" } }
        let dive = try json(try #require(received.first { $0.topic == "gateway/\(id)/submersion/dive" }))
        #expect(dive["endReason"] as? String == "surfaceTimeout")
        #expect(dive["startDate"] as? Double == t0)
        let states = try received.filter { $0.topic == "gateway/\(id)/submersion/depth-state" }.map(json)
        #expect(states.map { $0["state"] as? String } == ["submergedShallow", "submergedDeep", "notSubmerged"])
        #expect(states.last?["cause"] as? String == "surfaceTimeout")
        #expect(states[1]["deviceState"] as? String == "submergedShallow", "the watch's own word next to the derived deep state")
        #expect(states.last?["deviceState"] as? String == "notSubmerged")
        await device.shutdown()
        try await run.stop()
    }

    /// One second of 800 Hz accelerometer samples of a watch at rest.
    static func restingBatch(from timestamp: Double) -> AccelerometerBatch {
        AccelerometerBatch(samples: (0..<800).map { AccelerometerSample(timestamp: timestamp + Double($0) / 800, acceleration: Vector3(x: 0, y: 0, z: -1)) })
    }
}
