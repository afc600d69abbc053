import BrokerTestSupport
import Foundation
import MQTTTransport
import TelemetryCore
import TelemetryGateway
import TelemetrySimulation
import Testing

/// The simulator's headphone scenarios through a real broker and the in-process gateway: each
/// yields exactly its retained connection states, hand-offs, posture and gesture events, and
/// poses within 1° of the scripted head angles.
@Suite("Headphone derivations through a real broker")
struct HeadphoneDerivationTests {
    @Test("every scenario yields its ground truth: connection states, hand-offs, poses, posture, gestures")
    func scenarios() async throws {
        let broker = try await TestBroker.started()
        let run = try await GatewayRun.start(broker)
        let collector = run.collector
        let bridge = try await TestClients.connected(try TestClients.configuration(broker))
        let scenarios = HeadphoneScenario.all(startDate: Date().timeIntervalSince1970.rounded(.down))

        for scenario in scenarios {
            let connectionTopic = "gateway/\(scenario.deviceId)/headphone/connection"
            var silences = 0
            for step in scenario.steps {
                switch step {
                case .frame(let frame):
                    // QoS 1 for every frame keeps their order on the way to the gateway.
                    try await bridge.send(
                        MQTTMessage(
                            topic: frame.topic(), payload: frame.payload, qos: .atLeastOnce, retain: frame.retain,
                            properties: .init(contentType: "application/json")))
                case .silence:
                    // The stream is silent now: the gateway's own clock must notice (its ticks),
                    // so wait for the timeout it reports, under a deadline.
                    silences += 1
                    #expect(await bridge.flush(timeout: 30))
                    let expected = silences
                    try await collector.wait(timeout: 30, "\(scenario.name): streamTimeout #\(expected)") { messages in
                        messages.filter { $0.topic == connectionTopic && $0.payloadString.contains(#""reason":"streamTimeout""#) }.count >= expected
                    }
                }
            }
            #expect(await bridge.flush(timeout: 30))
            // Every scenario ends with a disconnect event: once its state is in, the device's
            // earlier frames have been processed (one worker per device, in order).
            let count = scenario.connections.count
            try await collector.wait(timeout: 60, "\(scenario.name): \(count) connection states") { messages in
                messages.filter { $0.topic == connectionTopic }.count >= count
            }
        }

        // Exactly the expected outputs, per scenario.
        let received = collector.messages
        for scenario in scenarios {
            let observed = try Self.observed(received, device: scenario.deviceId)
            let problems = scenario.mismatches(observed)
            #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
            #expect(!received.contains { $0.topic == "gateway/\(scenario.deviceId)/errors" }, "\(scenario.name) produced errors")
        }

        // The broker keeps the last connection state of every device, retained.
        let (lateClient, late) = try await TestClients.observer(broker, subscribedTo: ["gateway/+/headphone/connection"])
        let retained = try await late.wait("retained connection states") { $0.count >= scenarios.count }
        for scenario in scenarios {
            let message = try #require(retained.first { $0.topic == "gateway/\(scenario.deviceId)/headphone/connection" })
            #expect(message.retain)
            let state = try json(message)
            let last = try #require(scenario.connections.last)
            #expect(state["state"] as? String == last.state.rawValue)
            #expect(state["reason"] as? String == last.reason.rawValue)
            #expect(state["sensorLocation"] as? String == last.sensorLocation?.name)
            #expect(state["deviceId"] as? String == scenario.deviceId)
            #expect((state["eventId"] as? String)?.count == 16)
        }
        await lateClient.shutdown()
        await bridge.shutdown()
        try await run.stop()
        // Stopping (the workers' final flush) published no further state.
        for scenario in scenarios {
            #expect(collector.messages(on: "gateway/\(scenario.deviceId)/headphone/connection").count == scenario.connections.count)
        }
    }

    /// The scenario's outputs among `messages`, read with Foundation.
    private static func observed(_ messages: [MQTTMessage], device: String) throws -> HeadphoneScenario.Observed {
        var observed = HeadphoneScenario.Observed()
        let prefix = "gateway/\(device)/headphone/"
        for message in messages where message.topic.hasPrefix(prefix) {
            let object = try json(message)
            func number(_ key: String) -> Double { (object[key] as? NSNumber)?.doubleValue ?? .nan }
            func text(_ key: String) -> String { object[key] as? String ?? "" }
            switch message.topic.dropFirst(prefix.count) {
            case "connection":
                observed.connections.append(
                    .init(
                        state: text("state"), reason: text("reason"), sensorLocation: object["sensorLocation"] as? String, date: number("date"),
                        timestamp: (object["timestamp"] as? NSNumber)?.doubleValue, version: (object["version"] as? NSNumber)?.uint64Value ?? 0))
            case "sensor-location":
                observed.handoffs.append(.init(from: text("from"), to: text("to"), timestamp: number("timestamp")))
            case "pose":
                observed.poses.append(.init(timestamp: number("timestamp"), yaw: number("yaw"), pitch: number("pitch"), roll: number("roll")))
            case "posture":
                observed.postures.append(.init(kind: text("state"), timestamp: number("timestamp")))
            case "gesture":
                observed.gestures.append(.init(kind: text("gesture"), timestamp: number("timestamp")))
            default:
                continue
            }
        }
        return observed
    }

    @Test("a reset-pose command makes the current head attitude the new reference")
    func resetPose() async throws {
        let broker = try await TestBroker.started()
        let run = try await GatewayRun.start(broker)
        let bridge = try await TestClients.connected(try TestClients.configuration(broker))
        let id = "buds-reset-1"
        let hello = DeviceDescriptor(
            model: "AirPods Pro (2nd generation)", platform: "iOS", osVersion: "17.1", app: "com.example.listen", authorization: .authorized,
            headphones: "AirPods Pro (2nd generation)")
        try await bridge.publish(MQTTMessage(topic: "wearables/\(id)/hello", payload: FrameEncoder.encode(hello)))
        try await bridge.publish(
            MQTTMessage(topic: "wearables/\(id)/headphone/connection", payload: FrameEncoder.encode(HeadphoneConnectionEvent(kind: .connected, date: 1_700_000_000))))

        func samples(yawDegrees: Double, from start: Double) -> [UInt8] {
            let attitude = Quaternion(yaw: yawDegrees * .pi / 180, pitch: 0, roll: 0)
            let motion = (0..<5).map { index in
                DeviceMotion(
                    timestamp: start + Double(index) * 0.2, attitude: attitude, rotationRate: Vector3(x: 0, y: 0, z: 0),
                    gravity: attitude.inverse.rotate(Vector3(x: 0, y: 0, z: -1)), userAcceleration: Vector3(x: 0, y: 0, z: 0),
                    sensorLocation: .headphoneLeft)
            }
            return FrameEncoder.encode(DeviceMotionBatch(samples: motion))
        }
        let poseTopic = "gateway/\(id)/headphone/pose"
        @Sendable func lastPose(_ messages: [MQTTMessage]) -> [String: Any]? {
            messages.last { $0.topic == poseTopic }.flatMap { try? json($0) }
        }

        // Reference: the first sample after connecting (yaw 0); then the head turns 40°.
        try await bridge.publish(MQTTMessage(topic: "wearables/\(id)/headphone/motion", payload: samples(yawDegrees: 0, from: 100)))
        try await bridge.publish(MQTTMessage(topic: "wearables/\(id)/headphone/motion", payload: samples(yawDegrees: 40, from: 101)))
        try await run.collector.wait("a pose 40° to the side") { messages in
            (lastPose(messages)?["yaw"] as? Double).map { abs($0 - 40) < 1 } ?? false
        }

        // An app asks for a new reference; the same 40° attitude is now straight ahead.
        let app = try await TestClients.connected(try TestClients.configuration(broker))
        try await app.publish(MQTTMessage(topic: "gateway/\(id)/headphone/reset-pose", payload: []))
        try await bridge.publish(MQTTMessage(topic: "wearables/\(id)/headphone/motion", payload: samples(yawDegrees: 40, from: 102)))
        try await run.collector.wait("a pose straight ahead after the reset") { messages in
            guard let last = lastPose(messages), let timestamp = last["timestamp"] as? Double, timestamp >= 102 else { return false }
            return (last["yaw"] as? Double).map { abs($0) < 1 } ?? false
        }
        #expect(!run.collector.messages.contains { $0.topic == "gateway/errors" }, "the command must not be reported as a bad topic")
        await app.shutdown()
        await bridge.shutdown()
        try await run.stop()
    }
}
