import BrokerTestSupport
import Foundation
import MQTTTransport
import TelemetryCore
import TelemetrySimulation
import Testing

/// Record and replay end to end: a `wearable-sim publish` session recorded with
/// `wearable-sim record`, played with `wearable-sim replay` into a fresh broker and gateway,
/// and seeded faults whose effect the gateway's counters show exactly.
@Suite("Session capture and replay through real brokers")
struct SessionReplayTests {
    /// The derived streams whose events carry ids: swings, strokes, depth states, dives, hand-offs.
    static let derivedLeaves = ["swing", "tennis/stroke", "submersion/depth-state", "submersion/dive", "headphone/sensor-location"]

    @Test("a replayed session yields the same derived (topic, eventId) set as the live one")
    func replayMatchesLiveSession() async throws {
        let liveBroker = try await TestBroker.started()
        let live = try await GatewayRun.start(liveBroker)
        let capture = liveBroker.directory.appendingPathComponent("session.capture")
        let recorder = try SimulatorProcess(["record", "--broker", liveBroker.url, "--output", capture.path], directory: liveBroker.directory)
        _ = try await recorder.waitForLine(startingWith: "recording ")
        // 12 s of 4 devices: the Ultra goes under at 10 s, so depth states are in it (the
        // documented 15 s run adds nothing derived but takes longer).
        let publisher = try SimulatorProcess(
            ["publish", "--broker", liveBroker.url, "--devices", "4", "--seed", "15", "--duration", "12", "--log-level", "warning"],
            directory: liveBroker.directory)
        try await publisher.waitForSuccess()
        recorder.signal(SIGTERM)
        try await recorder.waitForSuccess()
        let recorded = try SessionCapture.read(from: capture)
        #expect(recorded.trailer?.frames == recorded.frames.count)
        #expect(recorded.frames.contains { $0.retain }, "hello and status are recorded as retained")
        #expect(recorded.frames.allSatisfy { !$0.stored }, "the broker held nothing when the recording began")
        try await live.waitForMetric("gateway_frames_processed_total", atLeast: Double(recorded.frames.count))
        try await live.stopAndCollect()
        let liveKeys = live.eventKeys(Self.derivedLeaves)

        let replayBroker = try await TestBroker.started()
        let replay = try await GatewayRun.start(replayBroker)
        let replayer = try SimulatorProcess(
            ["replay", "--broker", replayBroker.url, "--input", capture.path, "--speed", "4"], directory: replayBroker.directory)
        try await replayer.waitForSuccess()
        #expect(replayer.output.contains { $0.hasPrefix("injected: captured=\(recorded.frames.count) ") })
        try await replay.waitForMetric("gateway_frames_processed_total", atLeast: Double(recorded.frames.count))
        try await replay.stopAndCollect()
        let replayKeys = replay.eventKeys(Self.derivedLeaves)

        for leaf in ["swing", "tennis/stroke", "submersion/depth-state"] {
            #expect(liveKeys.contains { $0.topic.hasSuffix("/" + leaf) }, "the live session derived \(leaf) events")
        }
        #expect(
            liveKeys == replayKeys,
            "only live: \(liveKeys.subtracting(replayKeys).sorted()); only replayed: \(replayKeys.subtracting(liveKeys).sorted())")
        #expect(live.gateway.metrics.sum("gateway_frames_rejected_total") == 0)
        #expect(replay.gateway.metrics.sum("gateway_frames_rejected_total") == 0)
    }

    @Test("a recorded dive and bud hand-off replay to the same dives and hand-offs")
    func replayedDiveAndHandoff() async throws {
        // The fleet session above is too short for a whole dive or a hand-off: record the
        // scripted scenarios (published as fast as the broker takes them) with the kit.
        let liveBroker = try await TestBroker.started()
        let live = try await GatewayRun.start(liveBroker)
        let file = liveBroker.directory.appendingPathComponent("scripted.capture")
        let recorder = try await CaptureRecorder(broker: liveBroker.url, output: file)
        let frames = DiveScenario.snorkel(deviceId: "dive-replay").frames(startDate: 1_700_000_000) + HeadphoneScenario.budHandoff(deviceId: "buds-replay").frames
        try await live.publish(frames)
        try await recorder.waitForFrames(frames.count)
        #expect(try await recorder.finish() == frames.count)
        try await live.waitForMetric("gateway_frames_processed_total", atLeast: Double(frames.count))
        try await live.stopAndCollect()
        let liveKeys = live.eventKeys(Self.derivedLeaves)

        let capture = try SessionCapture.read(from: file)
        let replayBroker = try await TestBroker.started()
        let replay = try await GatewayRun.start(replayBroker)
        try await replay.replay(capture)
        try await replay.waitForMetric("gateway_frames_processed_total", atLeast: Double(frames.count))
        try await replay.stopAndCollect()
        let replayKeys = replay.eventKeys(Self.derivedLeaves)

        for leaf in ["submersion/dive", "submersion/depth-state", "headphone/sensor-location"] {
            #expect(liveKeys.contains { $0.topic.hasSuffix("/" + leaf) }, "the live session derived \(leaf) events")
        }
        #expect(
            liveKeys == replayKeys,
            "only live: \(liveKeys.subtracting(replayKeys).sorted()); only replayed: \(replayKeys.subtracting(liveKeys).sorted())")
    }

    /// A capture of 20 simulated seconds of a mixed fleet, as the recorder would write it:
    /// hello and status from the retained store first, the rest live at their times.
    static func syntheticCapture(seed: UInt64) -> SessionCapture {
        var generator = TrafficGenerator(seed: seed, deviceCount: 5, startDate: 1_700_000_000)
        let frames = generator.advance(to: 20).map { frame in
            CapturedFrame(
                time: frame.time, topic: frame.topic(), qos: frame.qos, retain: frame.retain, stored: frame.retain, payload: frame.payload,
                properties: MQTTProperties(contentType: "application/json"))
        }
        return SessionCapture(header: .init(broker: "mqtt://simulated", filter: "wearables/#", startedAt: 1_700_000_000), frames: frames)
    }

    @Test(
        "injected faults show exactly in the gateway's counters",
        arguments: [
            FaultPlan(seed: 3, duplicate: 0.05),
            FaultPlan(seed: 4, drop: 0.05),
            FaultPlan(seed: 5, reorder: 0.05),
            FaultPlan(seed: 6, drop: 0.03, duplicate: 0.03, reorder: 0.03, delay: 300, cutAt: 15),
        ])
    func faultsShowInCounters(_ faults: FaultPlan) async throws {
        let capture = Self.syntheticCapture(seed: 21)
        let broker = try await TestBroker.started()
        let run = try await GatewayRun.start(broker)
        let schedule = try await run.replay(capture, faults: faults)
        let report = schedule.report
        let expected = schedule.expectedSequenceAnomalies()
        try await run.waitForMetric("gateway_frames_processed_total", atLeast: Double(report.published))
        try await run.stopAndCollect()
        let metrics = run.gateway.metrics

        #expect(report.published == report.captured - report.cut - report.dropped + report.duplicated)
        #expect(metrics.sum("gateway_messages_received_total") == Double(report.published), "\(report)")
        #expect(metrics.sum("gateway_frames_rejected_total") == 0)
        // Every live frame of the simulator is numbered: each injected copy is one duplicate.
        #expect(expected.duplicates == UInt64(report.duplicated))
        #expect(metrics.sum("gateway_sequence_anomalies_total", labels: ["kind": "duplicate"]) == Double(expected.duplicates), "\(report)")
        #expect(metrics.sum("gateway_sequence_anomalies_total", labels: ["kind": "missing"]) == Double(expected.missing), "\(report)")
        #expect(metrics.sum("gateway_sequence_anomalies_total", labels: ["kind": "reordered"]) == Double(expected.reordered), "\(report)")
        #expect(metrics.sum("gateway_sequence_anomalies_total", labels: ["kind": "restarted"]) == Double(expected.restarts), "\(report)")
        if faults.drop > 0 { #expect(report.dropped > 0 && expected.missing > 0) }
        if faults.duplicate > 0 { #expect(report.duplicated > 0) }
        if faults.reorder > 0 {
            // A swap of neighbours n, n+1 sends n+1 first (a gap of one) and then n (late).
            #expect(report.reordered > 0 && expected.reordered > 0)
            if faults.drop == 0 && faults.delay == 0 {
                #expect(expected.reordered == UInt64(report.reordered) && expected.missing == UInt64(report.reordered))
            }
        }
    }

    @Test("the same seed published as JSON and as protobuf derives identical swings")
    func jsonAndProtobufDeriveIdenticalSwings() async throws {
        var generator = TrafficGenerator(seed: 9, deviceCount: 4, startDate: 1_700_000_000)
        let frames = generator.advance(to: 20)
        #expect(frames.filter { $0.encoded(as: .protobuf).encoding == .protobuf }.count > 100, "the high-rate streams go binary")
        var swings: [PayloadEncoding: [String: [String: Any]]] = [:]
        for encoding in [PayloadEncoding.json, .protobuf] {
            let broker = try await TestBroker.started()
            let run = try await GatewayRun.start(broker)
            try await run.publish(frames, encoding: encoding)
            try await run.waitForMetric("gateway_frames_processed_total", atLeast: Double(frames.count))
            try await run.stopAndCollect()
            let metrics = run.gateway.metrics
            #expect(metrics.sum("gateway_frames_rejected_total") == 0)
            var byId: [String: [String: Any]] = [:]
            for message in run.events("swing") {
                let object = try #require(message.jsonObject)
                byId[try #require(object["eventId"] as? String)] = object
            }
            swings[encoding] = byId
        }
        let json = try #require(swings[.json])
        let protobuf = try #require(swings[.protobuf])
        #expect(json.count >= 4, "the tennis and baseball watches swing several times in 20 s")
        #expect(Set(json.keys) == Set(protobuf.keys))
        for (id, expected) in json {
            let actual = try #require(protobuf[id])
            for field in ["deviceId", "startTimestamp", "impactTimestamp", "timeToContact", "contact"] {
                #expect("\(expected[field] ?? "nil")" == "\(actual[field] ?? "nil")", "\(field) of swing \(id)")
            }
            // Sensor values travel as float32 in protobuf (docs/binary-encoding.md): rates and
            // angles, rounded to 10⁻⁴, may differ by one step.
            for field in ["peakRotationRate", "rotationAngle"] {
                let a = try #require(expected[field] as? Double)
                let b = try #require(actual[field] as? Double)
                #expect(abs(a - b) <= 1.5e-4, "\(field) of swing \(id): \(a) vs \(b)")
            }
        }
    }
}
