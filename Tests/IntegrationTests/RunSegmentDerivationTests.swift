import BrokerTestSupport
import Foundation
import MQTTTransport
import TelemetryCore
import TelemetryGateway
import TelemetrySimulation
import Testing

/// Run segments end to end: the simulator's urban and trail runs (with their late and
/// duplicated events) through a real mosquitto and the in-process gateway with the shipped
/// registry and capability table, compared with each run's ground truth.
@Suite("Run segments through a real broker")
struct RunSegmentDerivationTests {
    private static let startDate = 1_700_000_000.0

    private static func object(_ message: MQTTMessage) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any]) ?? [:]
    }

    private static func number(_ object: [String: Any], _ key: String) -> Double? { (object[key] as? NSNumber)?.doubleValue }

    /// Checks one run: exactly its segments, in order, with exact dates and values within the
    /// tolerances of `RunScenarioTests` (see there for why), then its summary.
    private static func check(_ scenario: RunScenario, in received: [MQTTMessage]) throws {
        let id = scenario.deviceId
        let truth = scenario.expectedSegments(startDate: startDate)
        let segments = received.filter { $0.topic == "gateway/\(id)/pedometer/segment" }.map(object)
        try #require(segments.count == truth.count, "\(scenario.name): \(segments.count) segments, expected \(truth.count)")
        for (segment, expected) in zip(segments, truth) {
            let label = "\(scenario.name) #\(expected.index)"
            #expect(segment["deviceId"] as? String == id && (segment["eventId"] as? String)?.count == 16, "\(label)")
            #expect(number(segment, "index") == Double(expected.index), "\(label)")
            #expect(number(segment, "startDate") == expected.startDate && number(segment, "endDate") == expected.endDate, "\(label)")
            let checks: [(field: String, truth: Double, tolerance: Double)] = [
                ("activeDuration", expected.activeDuration, 0.001), ("steps", expected.steps, 6), ("distance", expected.distance, 6),
                ("averageActivePace", expected.averageActivePace, 0.02 * expected.averageActivePace),
                ("elevationChange", expected.elevationChange, 1), ("elevationGain", expected.elevationGain, 1.5),
            ]
            for check in checks {
                let value = number(segment, check.field) ?? .nan
                #expect(abs(value - check.truth) <= check.tolerance, "\(label): \(check.field) \(value), expected \(check.truth) ± \(check.tolerance)")
            }
            #expect(segment["hill"] as? Bool == expected.hill, "\(label)")
        }

        let expected = scenario.expectedWorkout(startDate: startDate)
        let workouts = received.filter { $0.topic == "gateway/\(id)/pedometer/workout" }
        try #require(workouts.count == 1, "\(scenario.name)")
        let lastSegment = try #require(received.lastIndex { $0.topic == "gateway/\(id)/pedometer/segment" })
        #expect(received.firstIndex { $0.topic == "gateway/\(id)/pedometer/workout" }! > lastSegment, "the summary follows the segments")
        let summary = object(workouts[0])
        let count = Double(expected.segments)
        #expect(number(summary, "startDate") == expected.startDate && number(summary, "endDate") == expected.endDate, "\(scenario.name)")
        #expect(number(summary, "segments") == count)
        let checks: [(field: String, truth: Double, tolerance: Double)] = [
            ("activeDuration", expected.activeDuration, 0.001 * count), ("pausedDuration", expected.pausedDuration, 0.001 * count),
            ("steps", expected.steps, 6 * count), ("distance", expected.distance, 6 * count),
            ("averageActivePace", expected.averageActivePace, 0.02 * expected.averageActivePace),
            ("elevationGain", expected.elevationGain, 1.5 * count), ("elevationChange", expected.elevationChange, count),
            ("lateEvents", Double(scenario.expectedLateEvents), 0), ("duplicateEvents", Double(scenario.expectedDuplicateEvents), 0),
        ]
        for check in checks {
            let value = number(summary, check.field) ?? .nan
            #expect(abs(value - check.truth) <= check.tolerance, "\(scenario.name) summary: \(check.field) \(value), expected \(check.truth) ± \(check.tolerance)")
        }
    }

    @Test("the urban and trail runs yield exactly their segments and summaries", arguments: [UInt64(1), 2])
    func runs(seed: UInt64) async throws {
        let broker = try await TestBroker.started()
        var configuration = try GatewayHarness.configuration(broker: broker)
        configuration.registryFile = TestBroker.repositoryRoot.appendingPathComponent("config/devices.yml").path
        configuration.pipeline.errorReportInterval = 600
        let run = try await GatewayRun.start(broker, configuration: configuration)
        let scenarios = [RunScenario.urbanRun(seed: seed), RunScenario.trailRun(seed: seed)]
        #expect(scenarios.map(\.deviceId) == ["watch-run-1", "watch-run-2"], "ids of the shipped registry")

        let device = try await TestClients.connected(try TestClients.configuration(broker))
        for frame in scenarios.flatMap({ $0.frames(startDate: Self.startDate) }) {
            try await device.send(
                MQTTMessage(
                    topic: frame.topic(), payload: frame.payload, qos: frame.qos, retain: frame.retain,
                    properties: .init(contentType: "application/json")))
        }
        #expect(await device.flush(timeout: 60))
        try await run.collector.wait(timeout: 120, "both workout summaries") { messages in
            messages.filter { $0.topic.hasSuffix("/pedometer/workout") }.count >= scenarios.count
        }
        try await run.gateway.stop()
        // The offline status is the gateway's last publication: everything derived came before it.
        let received = try await run.collector.wait(timeout: 30, "the gateway's offline status") { messages in
            messages.contains { $0.topic == "gateway/status" && $0.payloadString.contains(#""offline""#) }
        }
        await device.shutdown()
        await run.observer.shutdown()

        for scenario in scenarios { try Self.check(scenario, in: received) }
        #expect(!received.contains { $0.topic.hasSuffix("/errors") }, "every frame is accepted: \(received.filter { $0.topic.hasSuffix("/errors") }.map(\.payloadString))")
        for segment in received where segment.topic.hasSuffix("/pedometer/segment") || segment.topic.hasSuffix("/pedometer/workout") {
            #expect(!segment.retain)
        }
    }
}
