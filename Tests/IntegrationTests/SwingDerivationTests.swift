import BrokerTestSupport
import MQTTTransport
import TelemetryCore
import TelemetryGateway
import TelemetrySimulation
import Testing

/// Swing metrics and tennis strokes end to end: the simulator's ground-truth scenarios
/// published through a real mosquitto to the in-process gateway.
@Suite("Swing metrics through a real broker")
struct SwingDerivationTests {
    static let startDate = 1_700_000_000.0

    static func descriptor(wrist: WristLocation) -> DeviceDescriptor {
        DeviceDescriptor(
            model: "Apple Watch Series 9", platform: "watchOS", osVersion: "10.1", app: "com.example.swing", authorization: .authorized,
            wristLocation: wrist, crownOrientation: .right)
    }

    static func message(_ id: String, _ stream: String, _ payload: [UInt8], retain: Bool = false) -> MQTTMessage {
        MQTTMessage(
            topic: "wearables/\(id)/\(stream)", payload: payload, qos: .atLeastOnce, retain: retain, properties: .init(contentType: "application/json"))
    }

    /// Says hello and waits for the gateway to have taken it (its availability), so the data
    /// that follows is checked against the Series 9's capabilities.
    static func hello(_ id: String, wrist: WristLocation, device: MQTTClient, collector: MessageCollector) async throws {
        try await device.send(message(id, "hello", FrameEncoder.encode(descriptor(wrist: wrist)), retain: true))
        try await collector.wait("availability of \(id)") { $0.contains { $0.topic == "gateway/\(id)/availability" } }
    }

    @Test("a baseball session yields exactly its contacts and misses, with the time to contact of the ground truth")
    func baseballSession() async throws {
        let broker = try await TestBroker.started()
        let run = try await GatewayRun.start(broker)
        let id = "watch-s9-bat"
        let scenario = SwingScenario(
            seed: 2_024,
            actions: [
                .idle(seconds: 1), .swing(contact: true, placement: .acrossBatchBoundary), .walking(seconds: 4), .swing(contact: false),
                .swing(contact: true, placement: .insideBatch), .practiceSwing, .waving(seconds: 3), .swing(contact: true), .bump,
                .swing(contact: false, placement: .acrossBatchBoundary), .swing(contact: true, placement: .acrossBatchBoundary), .idle(seconds: 1),
            ])
        let expected = scenario.groundTruth.filter(\.shouldPublish)

        let device = try await TestClients.connected(try TestClients.configuration(broker))
        try await Self.hello(id, wrist: .right, device: device, collector: run.collector)
        // Batched streams need a running workout: the workout frame goes first.
        try await device.send(Self.message(id, "workout", FrameEncoder.encode(WorkoutEvent(state: .running, activityType: "baseball", date: Self.startDate))))
        for batch in scenario.arrivals {
            switch batch {
            case .accelerometer(let batch): try await device.send(Self.message(id, "batched/accelerometer", FrameEncoder.encode(batch)))
            case .deviceMotion(let batch): try await device.send(Self.message(id, "batched/device-motion", FrameEncoder.encode(batch)))
            }
        }
        try await device.send(Self.message(id, "workout", FrameEncoder.encode(WorkoutEvent(state: .ended, activityType: "baseball", date: Self.startDate + 60))))
        #expect(await device.flush(timeout: 60))
        try await run.collector.wait(timeout: 60, "\(expected.count) swings") { messages in
            messages.filter { $0.topic == "gateway/\(id)/swing" }.count >= expected.count
        }
        let received = try await run.stopAndCollect()
        let swings = try received.filter { $0.topic == "gateway/\(id)/swing" }.map(json)
        #expect(received.filter { $0.topic == "gateway/\(id)/errors" }.isEmpty, "every frame is accepted")

        try #require(swings.count == expected.count, "\(swings)")
        for (swing, truth) in zip(swings, expected) {
            #expect(swing["deviceId"] as? String == id)
            #expect((swing["eventId"] as? String)?.count == 16)
            #expect(swing["contact"] as? Bool == (truth.kind == .contact))
            let start = try #require(swing["startTimestamp"] as? Double)
            #expect(abs(start - truth.startTimestamp) < 0.005)
            if let trueTimeToContact = truth.timeToContact {
                let timeToContact = try #require(swing["timeToContact"] as? Double)
                #expect(abs(timeToContact - trueTimeToContact) < 0.005, "\(swing) vs \(truth)")
                #expect(abs(try #require(swing["impactTimestamp"] as? Double) - truth.impactTimestamp!) < 0.002)
            } else {
                #expect(swing["timeToContact"] == nil && swing["impactTimestamp"] == nil)
            }
            #expect((swing["peakRotationRate"] as? Double ?? 0) >= 8)
            #expect((swing["rotationAngle"] as? Double ?? 0) >= 1)
        }
        #expect(expected.contains { $0.crossesBatchBoundary && $0.kind == .contact })
        await device.shutdown()
        await run.observer.shutdown()
    }

    @Test("a tennis rally yields exactly its forehands and backhands, counted per workout")
    func tennisRally() async throws {
        let broker = try await TestBroker.started()
        let run = try await GatewayRun.start(broker)
        let id = "watch-s9-tennis"
        let first: [TennisStrokeKind] = [.forehand, .backhand, .forehand, .forehand, .backhand, .backhand, .forehand]
        let second: [TennisStrokeKind] = [.backhand, .forehand]
        let rally = TennisRallyScenario(seed: 77, wrist: .left, sequence: first, walkEvery: 3)
        let nextRally = TennisRallyScenario(seed: 78, wrist: .left, sequence: second, uptimeAtStart: 60_000)

        let device = try await TestClients.connected(try TestClients.configuration(broker))
        try await Self.hello(id, wrist: .left, device: device, collector: run.collector)
        try await device.send(Self.message(id, "workout", FrameEncoder.encode(WorkoutEvent(state: .running, activityType: "tennis", date: Self.startDate))))
        for frame in rally.frames { try await device.send(Self.message(id, "motion", FrameEncoder.encode(frame))) }
        try await device.send(Self.message(id, "workout", FrameEncoder.encode(WorkoutEvent(state: .ended, activityType: "tennis", date: Self.startDate + 100))))
        try await device.send(Self.message(id, "workout", FrameEncoder.encode(WorkoutEvent(state: .running, activityType: "tennis", date: Self.startDate + 200))))
        for frame in nextRally.frames { try await device.send(Self.message(id, "motion", FrameEncoder.encode(frame))) }
        #expect(await device.flush(timeout: 60))
        let total = first.count + second.count
        try await run.collector.wait(timeout: 60, "\(total) strokes") { messages in
            messages.filter { $0.topic == "gateway/\(id)/tennis/stroke" }.count >= total
        }
        let received = try await run.stopAndCollect()
        let strokes = try received.filter { $0.topic == "gateway/\(id)/tennis/stroke" }.map(json)
        try #require(strokes.count == total, "\(strokes)")
        #expect(strokes.map { $0["stroke"] as? String } == (first + second).map(\.rawValue))
        #expect(strokes.map { $0["forehandCount"] as? Int } == [1, 1, 2, 3, 3, 3, 4, 0, 1])
        #expect(strokes.map { $0["backhandCount"] as? Int } == [0, 1, 1, 1, 2, 3, 3, 1, 1])
        let truth = rally.strokes + nextRally.strokes
        for (stroke, expected) in zip(strokes, truth) {
            let timestamp = try #require(stroke["timestamp"] as? Double)
            #expect(timestamp >= expected.startTimestamp && timestamp <= expected.endTimestamp + 1)
            #expect(stroke["deviceId"] as? String == id)
            #expect((stroke["eventId"] as? String)?.count == 16)
        }
        #expect(!received.contains { $0.topic == "gateway/\(id)/swing" }, "per-sample motion makes no batched swings")
        await device.shutdown()
        await run.observer.shutdown()
    }
}
