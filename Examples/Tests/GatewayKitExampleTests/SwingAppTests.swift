import Foundation
import MQTTTransport
import TelemetryCore
import TelemetrySimulation
import Testing
import WearableGatewayTesting

/// What a team building a swing-coaching app would test: its watch's traffic, through a real
/// mosquitto and the real gateway, yields the events the app consumes.
@Suite("Swing app against the gateway (Swift Testing)")
struct SwingAppTests {
    /// Only our watch may stream, with the entitlements our app has.
    static let registry = """
        open: false
        defaultEntitlements: []
        devices:
          coach-watch-1:
            entitlements: [motion.batched, motion.device, pedometer, altimeter, recorder]
        """

    @Test("a tennis watch's swings arrive with ids and contact flags")
    func tennisSwings() async throws {
        let broker = try await TestBroker.started()
        let run = try await GatewayRun.start(broker, registry: Self.registry) { configuration in
            configuration.pipeline.errorReportInterval = 1
        }
        // 12 s of a Series 9 playing tennis: hello, workout, 800 Hz and 200 Hz batches.
        var generator = TrafficGenerator(
            seed: 42, devices: [.appleWatchSeries9(id: "coach-watch-1", activity: .tennis)], startDate: Date().timeIntervalSince1970)
        try await run.publish(generator.advance(to: 12))

        let swings = try await run.waitForEvents("swing", device: "coach-watch-1", count: 2) { swing in
            swing["eventId"] is String && swing["contact"] is Bool
        }
        #expect(swings.count >= 2)
        #expect(run.events("errors", device: "coach-watch-1").map(\.payloadString) == [], "the gateway accepted every frame")
        try await run.stop()
    }

    @Test("a device missing from the registry gets an error event, not swings")
    func unknownDeviceIsRefused() async throws {
        let broker = try await TestBroker.started()
        let run = try await GatewayRun.start(broker, registry: Self.registry)
        var generator = TrafficGenerator(
            seed: 1, devices: [.appleWatchSeries9(id: "stranger-watch", activity: .tennis)], startDate: Date().timeIntervalSince1970)
        try await run.publish(generator.advance(to: 3))
        let errors = try await run.waitForEvents("errors", device: "stranger-watch") { $0["code"] as? String == "unknownDevice" }
        #expect(!errors.isEmpty)
        #expect(run.events("swing", device: "stranger-watch").isEmpty)
        try await run.stop()
    }

    @Test("a snorkel scenario yields exactly its ground-truth depth states")
    func snorkelDepthStates() async throws {
        let broker = try await TestBroker.started()
        let scenario = DiveScenario.snorkel(deviceId: "coach-ultra-1")
        let run = try await GatewayRun.start(
            broker, registry: "open: false\ndevices:\n  coach-ultra-1:\n    entitlements: [submersion.shallow]\n")
        try await run.publish(scenario.frames(startDate: 1_700_000_000))
        let expected = scenario.expectedDepthStates().map(\.name)
        let states = try await run.waitForEvents("submersion/depth-state", device: "coach-ultra-1", count: expected.count)
        #expect(states.compactMap { $0.jsonObject?["state"] as? String } == expected)
        try await run.stop()
    }

    @Test("a recorded session replays with faults the gateway counts")
    func replayWithFaults() async throws {
        // Record 3 s of live traffic with the kit's recorder, then replay it elsewhere.
        let source = try await TestBroker.started()
        let file = source.directory.appendingPathComponent("session.capture")
        let recorder = try await CaptureRecorder(broker: source.url, output: file)
        let publisher = try await TestClients.connected(try TestClients.configuration(source))
        var generator = TrafficGenerator(
            seed: 7, devices: [.appleWatchSeries9(id: "coach-watch-1", activity: .tennis)], startDate: Date().timeIntervalSince1970)
        for frame in generator.advance(to: 3) {
            try await publisher.send(
                MQTTMessage(topic: frame.topic(), payload: frame.payload, qos: .atLeastOnce, retain: frame.retain))
        }
        #expect(await publisher.flush(timeout: 30))
        try await recorder.waitForFrames(Int(publisher.statistics.publishesAcknowledged))
        try await recorder.finish()
        await publisher.shutdown()

        let capture = try SessionCapture.read(from: file)
        let broker = try await TestBroker.started()
        let run = try await GatewayRun.start(broker)
        let schedule = try await run.replay(capture, faults: FaultPlan(seed: 2, duplicate: 0.2))
        try await run.waitForMetric("gateway_frames_processed_total", atLeast: Double(schedule.report.published))
        try await run.stopAndCollect()
        #expect(
            run.gateway.metrics.sum("gateway_sequence_anomalies_total", labels: ["kind": "duplicate"])
                == Double(schedule.expectedSequenceAnomalies().duplicates))
    }
}
