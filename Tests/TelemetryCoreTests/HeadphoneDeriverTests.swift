import Foundation
import Testing

@testable import TelemetryCore

/// The headphone deriver's outputs: topics, QoS, retain flags, payloads, event ids, and how
/// connection changes, stale samples and reset-pose commands reach the pose.
@Suite struct HeadphoneDeriverTests {
    private let device = DeviceID("buds-1")!

    private func context(_ receivedAt: Double) -> DerivationContext {
        DerivationContext(device: device, receivedAt: receivedAt)
    }

    private func connection(_ kind: HeadphoneConnectionEvent.Kind, _ date: Double) -> DecodedFrame {
        .headphoneConnection(HeadphoneConnectionEvent(kind: kind, date: date), sequence: nil)
    }

    /// A frame of `count` 25 Hz samples from `start`, turning the head from `yaw` degrees by
    /// `step` degrees per sample.
    private func motion(
        from start: Double, count: Int = 5, yaw: Double = 0, step: Double = 0, location: SensorLocation = .headphoneLeft
    ) -> DecodedFrame {
        let samples = (0..<count).map { index in
            DeviceMotion(
                timestamp: start + Double(index) * 0.04,
                attitude: Quaternion(yaw: (yaw + step * Double(index)) * Double.pi / 180, pitch: 0, roll: 0),
                rotationRate: .zero, gravity: Vector3(x: 0, y: 0, z: -1), userAcceleration: .zero, sensorLocation: location)
        }
        return .headphoneMotion(DeviceMotionBatch(samples: samples))
    }

    private func topics(_ messages: [OutboundMessage]) -> [String] { messages.map(\.topic) }

    /// Whether a JSON number is `expected` within 1e-9 (sums of 0.04 s steps are not exact).
    private func close(_ value: Any?, _ expected: Double) -> Bool {
        guard let number = value as? Double else { return false }
        return abs(number - expected) < 1e-9
    }

    @Test("connection, hand-off and pose payloads, topics, QoS and retain flags")
    func payloads() throws {
        var deriver = HeadphoneDeriver()
        let connected = deriver.receive(connection(.connected, 1_767_225_601.5), context: context(1_767_225_601.6))
        #expect(topics(connected) == ["gateway/buds-1/headphone/connection"])
        let state = try #require(connected.first)
        #expect(state.qos == .atLeastOnce && state.retain)
        let json = try #require(state.jsonObject)
        #expect(json["deviceId"] as? String == "buds-1")
        #expect(json["state"] as? String == "connected")
        #expect(json["reason"] as? String == "event")
        #expect(json["sensorLocation"] is NSNull, "no bud has streamed yet")
        #expect(json["date"] as? Double == 1_767_225_601.5)
        #expect(json["version"] as? Int == 1_767_225_601_600)
        #expect(json["timestamp"] == nil)
        #expect((json["eventId"] as? String)?.count == 16)

        let first = deriver.receive(motion(from: 52_311.84, yaw: 10), context: context(1_767_225_602))
        #expect(topics(first) == ["gateway/buds-1/headphone/pose", "gateway/buds-1/headphone/pose"], "the reference, then 0.12 s later")
        let pose = try #require(first.first)
        #expect(pose.qos == .atMostOnce && !pose.retain)
        let poseJSON = try #require(pose.jsonObject)
        #expect(poseJSON["timestamp"] as? Double == 52_311.84)
        #expect(poseJSON["referenceTimestamp"] as? Double == 52_311.84)
        #expect(poseJSON["yaw"] as? Double == 0)
        let quaternion = try #require(poseJSON["quaternion"] as? [String: Double])
        #expect(quaternion == ["x": 0, "y": 0, "z": 0, "w": 1])

        let handoff = deriver.receive(motion(from: 52_312.04, count: 1, yaw: 10, location: .headphoneRight), context: context(1_767_225_602.1))
        #expect(topics(handoff) == ["gateway/buds-1/headphone/sensor-location"])
        let handoffMessage = try #require(handoff.first)
        #expect(handoffMessage.qos == .atLeastOnce && !handoffMessage.retain)
        let handoffJSON = try #require(handoffMessage.jsonObject)
        #expect(handoffJSON["from"] as? String == "headphoneLeft")
        #expect(handoffJSON["to"] as? String == "headphoneRight")
        #expect(close(handoffJSON["timestamp"], 52_312.04))

        let disconnected = deriver.receive(connection(.disconnected, 1_767_225_603), context: context(1_767_225_603.1))
        let disconnectedJSON = try #require(disconnected.first?.jsonObject)
        #expect(disconnectedJSON["reason"] as? String == "earRemoved")
        #expect(disconnectedJSON["sensorLocation"] as? String == "headphoneRight")
    }

    @Test("pose angles follow the head relative to the first sample; yaw wraps at ±180°")
    func poseAngles() throws {
        var deriver = HeadphoneDeriver()
        _ = deriver.receive(connection(.connected, 1), context: context(1))
        // Absolute yaw 170° turning left 5° per sample: relative 0, 5, …, 30 (absolute past 180°).
        let messages = deriver.receive(motion(from: 100, count: 7, yaw: 170, step: 5), context: context(2))
        let yaws = messages.compactMap { $0.jsonObject?["yaw"] as? Double }
        #expect(yaws == [0, 15, 30], "every third sample at 25 Hz with the 10 Hz limit")
        let last = try #require(messages.last?.jsonObject?["quaternion"] as? [String: Double])
        #expect(abs((last["z"] ?? 0) - 0.258819) < 1e-6)
        #expect(abs((last["w"] ?? 0) - 0.965926) < 1e-6)
    }

    @Test("duplicate and late samples are ignored")
    func staleSamples() {
        var deriver = HeadphoneDeriver()
        _ = deriver.receive(connection(.connected, 1), context: context(1))
        #expect(deriver.receive(motion(from: 100), context: context(2)).count == 2)
        #expect(deriver.receive(motion(from: 100), context: context(2.1)).isEmpty, "the same batch again")
        #expect(deriver.receive(motion(from: 99, location: .headphoneRight), context: context(2.2)).isEmpty, "older, from the other bud: no hand-off")
        #expect(abs((deriver.newestTimestamp ?? 0) - 100.16) < 1e-9)
        #expect(deriver.buds.current == .headphoneLeft)
    }

    @Test("no pose, hand-off, posture or gesture while disconnected")
    func nothingWhileDisconnected() {
        var deriver = HeadphoneDeriver()
        _ = deriver.receive(connection(.disconnected, 1), context: context(1))
        #expect(deriver.receive(motion(from: 100, count: 5, location: .headphoneRight), context: context(2)).isEmpty)
        #expect(deriver.buds.current == nil)
    }

    @Test("the reference pose is reset by a reconnect and by reset-pose; retained commands are ignored")
    func referenceResets() throws {
        var deriver = HeadphoneDeriver()
        _ = deriver.receive(connection(.connected, 1), context: context(1))
        _ = deriver.receive(motion(from: 100, count: 1, yaw: 0), context: context(2))
        let turned = deriver.receive(motion(from: 100.2, count: 1, yaw: 40), context: context(2.2))
        #expect(turned.first?.jsonObject?["yaw"] as? Double == 40)

        let retainedApplied = deriver.resetPose(at: 2.3, retained: true)
        #expect(!retainedApplied)
        let stillRelative = deriver.receive(motion(from: 100.4, count: 1, yaw: 40), context: context(2.4))
        #expect(stillRelative.first?.jsonObject?["yaw"] as? Double == 40)

        let applied = deriver.resetPose(at: 2.5)
        #expect(applied)
        let reset = deriver.receive(motion(from: 100.44, count: 1, yaw: 40), context: context(2.5))
        #expect(reset.count == 1, "published at once, although 0.04 s after the last pose")
        #expect(reset.first?.jsonObject?["yaw"] as? Double == 0)
        #expect(close(reset.first?.jsonObject?["referenceTimestamp"], 100.44))

        _ = deriver.receive(connection(.disconnected, 3), context: context(3))
        _ = deriver.receive(connection(.connected, 4), context: context(4))
        let reconnected = deriver.receive(motion(from: 200, count: 1, yaw: 90), context: context(4.1))
        #expect(reconnected.first?.jsonObject?["yaw"] as? Double == 0)
        #expect(reconnected.first?.jsonObject?["referenceTimestamp"] as? Double == 200, "a new timeline after the connect")
    }

    @Test("a stream timeout fires from the tick; the resumed stream reconnects with the resuming bud")
    func timeoutAndResumption() throws {
        var deriver = HeadphoneDeriver()
        _ = deriver.receive(connection(.connected, 1), context: context(1))
        _ = deriver.receive(motion(from: 100), context: context(1.1))
        #expect(deriver.tick(now: 3, context: context(3)).isEmpty)
        let fired = deriver.tick(now: 3.5, context: context(3.5))
        let timeout = try #require(fired.first)
        let timeoutJSON = try #require(timeout.jsonObject)
        #expect(timeoutJSON["reason"] as? String == "streamTimeout")
        #expect(timeoutJSON["sensorLocation"] as? String == "headphoneLeft")
        #expect(close(timeoutJSON["date"], 3.1))
        #expect(close(timeoutJSON["timestamp"], 100.16))

        var messages: [OutboundMessage] = []
        for frame in 0..<4 { messages += deriver.receive(motion(from: 110 + Double(frame) * 0.2, location: .headphoneRight), context: context(10)) }
        let resumed = try #require(messages.first { $0.topic.hasSuffix("/connection") }?.jsonObject)
        #expect(resumed["state"] as? String == "connected")
        #expect(resumed["reason"] as? String == "streamResumed")
        #expect(resumed["sensorLocation"] as? String == "headphoneRight")
        #expect(close(resumed["timestamp"], 110.52))
        // Then the hand-off left → right, and the pose still relative to the first reference.
        #expect(topics(messages).filter { !$0.hasSuffix("/pose") } == ["gateway/buds-1/headphone/connection", "gateway/buds-1/headphone/sensor-location"])
        #expect(close(messages.first { $0.topic.hasSuffix("/pose") }?.jsonObject?["referenceTimestamp"], 100))
        #expect(deriver.tick(now: .greatestFiniteMagnitude, context: context(11)).isEmpty, "the final drain flush fires nothing")
    }

    @Test("the reference survives a stall (streamResumed) and a hand-off; a connect event or reset-pose takes a new one")
    func referenceAcrossStall() throws {
        var deriver = HeadphoneDeriver()
        _ = deriver.receive(connection(.connected, 1), context: context(1))
        _ = deriver.receive(motion(from: 100, yaw: 10), context: context(1.1))
        // 3 s of silence on the gateway's clock: streamTimeout.
        #expect(deriver.tick(now: 4.2, context: context(4.2)).contains { $0.string("reason") == "streamTimeout" })
        var messages: [OutboundMessage] = []
        for frame in 0..<4 {
            messages += deriver.receive(motion(from: 103 + Double(frame) * 0.2, yaw: 40, location: .headphoneRight), context: context(4.5))
        }
        #expect(messages.contains { $0.string("reason") == "streamResumed" })
        let poses = messages.filter { $0.topic.hasSuffix("/pose") }
        try #require(!poses.isEmpty)
        for pose in poses {
            #expect(close(pose.jsonObject?["referenceTimestamp"], 100))
            #expect(abs((pose.number("yaw") ?? 0) - 30) < 1e-3, "40° relative to the first reference at 10°, not 0")
        }
        // A connect event from the bridge re-anchors.
        _ = deriver.receive(connection(.disconnected, 10), context: context(10))
        _ = deriver.receive(connection(.connected, 11), context: context(11))
        let anew = deriver.receive(motion(from: 120, yaw: 40), context: context(11.1)).filter { $0.topic.hasSuffix("/pose") }
        #expect(close(anew.first?.jsonObject?["referenceTimestamp"], 120))
        #expect(abs(anew.first?.number("yaw") ?? 1) < 1e-9)
    }

    @Test("a device that never used headphones publishes nothing, even when its bridge goes offline")
    func otherDevices() {
        var deriver = HeadphoneDeriver()
        #expect(deriver.receive(.status(DeviceStatus(state: .online, date: 1), sequence: nil), context: context(1)).isEmpty)
        #expect(deriver.receive(.status(DeviceStatus(state: .offline), sequence: nil), context: context(2)).isEmpty)
        #expect(deriver.receive(.motion(DeviceMotionBatch(samples: [])), context: context(3)).isEmpty)
        #expect(deriver.tick(now: 100, context: context(100)).isEmpty)
    }

    @Test("posture and gesture events are published on their topics")
    func postureAndGestureMessages() throws {
        var configuration = HeadphoneConfiguration()
        configuration.postureDuration = 1
        var deriver = HeadphoneDeriver(configuration: configuration)
        _ = deriver.receive(connection(.connected, 1), context: context(1))
        var messages: [OutboundMessage] = []
        var timestamp = 100.0
        func sample(pitch: Double, pitchRate: Double) -> DeviceMotion {
            defer { timestamp += 0.04 }
            return DeviceMotion(
                timestamp: timestamp, attitude: Quaternion(yaw: 0, pitch: pitch * Double.pi / 180, roll: 0),
                rotationRate: Vector3(x: pitchRate, y: 0, z: 0), gravity: Vector3(x: 0, y: 0, z: -1), userAcceleration: .zero,
                sensorLocation: .headphoneLeft)
        }
        var samples = [sample(pitch: 0, pitchRate: 0)]
        samples += (0..<40).map { _ in sample(pitch: -30, pitchRate: 0) }
        samples += [sample(pitch: 0, pitchRate: 0)]
        samples += [2.0, -2, 2].map { sample(pitch: 0, pitchRate: $0) }
        for chunk in stride(from: 0, to: samples.count, by: 5) {
            messages += deriver.receive(.headphoneMotion(DeviceMotionBatch(samples: Array(samples[chunk..<min(chunk + 5, samples.count)]))), context: context(2))
        }
        let posture = messages.filter { $0.topic == "gateway/buds-1/headphone/posture" }.compactMap(\.jsonObject)
        #expect(posture.map { $0["state"] as? String } == ["headDown", "upright"])
        #expect(close(posture.first?["startTimestamp"], 100.04))
        #expect(abs((posture.first?["duration"] as? Double ?? 0) - 1) < 1e-6)
        #expect(posture.first?["pitch"] as? Double == -30)
        let gesture = try #require(messages.first { $0.topic == "gateway/buds-1/headphone/gesture" })
        #expect(gesture.qos == .atLeastOnce)
        let gestureJSON = try #require(gesture.jsonObject)
        #expect(gestureJSON["gesture"] as? String == "nod")
        #expect(gestureJSON["swings"] as? Int == 3)
        #expect(gestureJSON["peakRotationRate"] as? Double == 2)
    }

    @Test("reprocessing the same input gives the same event ids")
    func idempotentIDs() {
        func run(receivedAt offset: Double) -> [String] {
            var deriver = HeadphoneDeriver()
            var messages = deriver.receive(connection(.connected, 1), context: context(1 + offset))
            messages += deriver.receive(motion(from: 100, count: 5), context: context(2 + offset))
            messages += deriver.receive(motion(from: 100.2, count: 5, location: .headphoneRight), context: context(2.2 + offset))
            messages += deriver.receive(connection(.disconnected, 3), context: context(3 + offset))
            return messages.compactMap { $0.jsonObject?["eventId"] as? String }
        }
        let first = run(receivedAt: 0)
        #expect(first.count == 7)
        #expect(Set(first).count == first.count)
        #expect(run(receivedAt: 500) == first, "the gateway clock (and so the version) does not enter the ids")
    }

    @Test("the reset-pose topic: filter, topic and parsing")
    func resetPoseTopic() {
        let scheme = TopicScheme()
        #expect(scheme.headphoneResetPoseFilter == "gateway/+/headphone/reset-pose")
        #expect(scheme.headphoneResetPoseTopic(device) == "gateway/buds-1/headphone/reset-pose")
        #expect(scheme.parseHeadphoneResetPose("gateway/buds-1/headphone/reset-pose") == device)
        #expect(scheme.parseHeadphoneResetPose("gateway/buds-1/headphone/pose") == nil)
        #expect(scheme.parseHeadphoneResetPose("gateway/bad id/headphone/reset-pose") == nil)
        #expect(scheme.parseHeadphoneResetPose("wearables/buds-1/headphone/reset-pose") == nil)
        #expect(TopicScheme(inboundRoot: "acme/in", outboundRoot: "acme/out").parseHeadphoneResetPose("acme/out/b.2/headphone/reset-pose") == DeviceID("b.2"))
    }

    @Test("the configuration's defaults are usable; bad values are named")
    func configuration() {
        #expect(HeadphoneConfiguration().configurationProblem == nil)
        var bad = HeadphoneConfiguration()
        bad.postureHysteresis = 25
        #expect(bad.configurationProblem?.contains("posture.hysteresis") == true)
        bad = HeadphoneConfiguration()
        bad.streamTimeout = 0
        #expect(bad.configurationProblem?.contains("streamTimeout") == true)
    }
}
