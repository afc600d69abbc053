import BrokerTestSupport
import Foundation
import MQTTTransport
import TelemetryCore
import TelemetryGateway
import TelemetrySimulation
import Testing

/// Water submersion end to end: the simulator's dive scenarios through a real mosquitto and
/// the in-process gateway, compared with each scenario's ground truth (the contract's rule as
/// the simulation computes it).
@Suite("Submersion derivations through a real broker")
struct SubmersionDerivationTests {
    private static let startDate = 1_700_000_000.0

    private func object(_ message: MQTTMessage) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any]) ?? [:]
    }

    /// A closed registry: each scenario device with the submersion entitlement of its maximum
    /// depth, and `extra` devices with the given entitlements.
    private func writeRegistry(_ broker: TestBroker, scenarios: [DiveScenario], extra: [String: String] = [:]) throws -> String {
        var yaml = "open: false\ndefaultEntitlements: []\ndevices:\n"
        for scenario in scenarios {
            yaml += "  \(scenario.deviceId):\n    entitlements: [\(scenario.maximumDepth == 40 ? "submersion.full" : "submersion.shallow")]\n"
        }
        for (id, entitlements) in extra.sorted(by: { $0.key < $1.key }) {
            yaml += "  \(id):\n    entitlements: [\(entitlements)]\n"
        }
        let url = broker.directory.appendingPathComponent("devices.yml")
        try yaml.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    /// Runs the gateway on `broker` with `registry`, publishes `frames`, waits until every frame
    /// was received, stops the gateway (its drain publishes everything) and returns what the
    /// observer got, up to the gateway's offline status (the last message it publishes).
    private func run(_ broker: TestBroker, registry: String, frames: [SimulatedFrame]) async throws -> [MQTTMessage] {
        var configuration = try GatewayHarness.configuration(broker: broker)
        configuration.registryFile = registry
        configuration.pipeline.errorReportInterval = 600
        let gateway = try GatewayHarness(configuration: configuration)
        gateway.start()
        let (observer, collector) = try await TestClients.observer(broker, subscribedTo: ["gateway/#"])
        try await collector.wait("gateway online") { $0.contains { $0.topic == "gateway/status" } }

        let device = try await TestClients.connected(try TestClients.configuration(broker))
        for frame in frames {
            try await device.send(
                MQTTMessage(
                    topic: frame.topic(), payload: frame.payload, qos: frame.qos, retain: frame.retain,
                    properties: .init(contentType: "application/json")))
        }
        #expect(await device.flush(timeout: 60))
        let total = Double(frames.count)
        do {
            try await collector.wait(timeout: 120, "the gateway to receive \(frames.count) frames") { Self.receivedCount($0) >= total }
        } catch {
            Issue.record("the gateway received \(Self.receivedCount(collector.messages)) of \(frames.count) frames")
            throw error
        }
        try await gateway.stop()
        // The offline status is the gateway's last publication on the same connection: everything
        // derived before it has been delivered once it arrives.
        let received = try await collector.wait(timeout: 30, "the gateway's offline status") { messages in
            messages.contains { $0.topic == "gateway/status" && $0.payloadString.contains(#""offline""#) }
        }
        await device.shutdown()
        await observer.shutdown()
        return received
    }

    /// The gateway's `gateway_messages_received_total` in its latest published metrics.
    private static func receivedCount(_ messages: [MQTTMessage]) -> Double {
        PrometheusText.latest(in: messages)?.sum("gateway_messages_received_total") ?? 0
    }

    /// Checks one scenario's outputs: exactly the expected depth states, chained, and one dive.
    private func check(_ scenario: DiveScenario, in received: [MQTTMessage], statedOutcomes: Bool) throws {
        let id = scenario.deviceId
        let states = received.filter { $0.topic == "gateway/\(id)/submersion/depth-state" }.map(object)
        let expected = scenario.expectedDepthStates()
        #expect(states.compactMap { $0["state"] as? String } == expected.map(\.name), "\(scenario.name)")
        var previous = DepthState.unknown
        for (state, expectedState) in zip(states, expected) {
            #expect(state["rawValue"] as? Int == expectedState.rawValue)
            #expect(state["previous"] as? String == previous.name, "\(scenario.name): states chain")
            #expect((state["maximumDepth"] as? NSNumber)?.doubleValue == scenario.maximumDepth)
            #expect(state["deviceId"] as? String == id)
            #expect((state["eventId"] as? String)?.count == 16)
            previous = expectedState
        }
        let dives = received.filter { $0.topic == "gateway/\(id)/submersion/dive" }.map(object)
        try #require(dives.count == 1, "\(scenario.name): one dive summary, got \(dives.count)")
        let dive = dives[0]
        #expect(dive["endReason"] as? String == "surfaced")
        #expect(abs(((dive["startDate"] as? NSNumber)?.doubleValue ?? 0) - (Self.startDate + scenario.submergeTime)) < 0.001)
        #expect(abs(((dive["endDate"] as? NSNumber)?.doubleValue ?? 0) - (Self.startDate + scenario.surfaceTime)) < 0.001)
        #expect(abs(((dive["maxDepth"] as? NSNumber)?.doubleValue ?? 0) - scenario.reportedMaxDepth()) < 1e-9, "\(scenario.name)")
        #expect(dive["deepestState"] as? String == expected.max { $0.rawValue < $1.rawValue }?.name)
        #expect(dive["minTemperature"] is NSNumber && dive["lastTemperatureUncertainty"] is NSNumber)
        let temperatures = received.filter { $0.topic == "gateway/\(id)/submersion/temperature" }.map(object)
        #expect(!temperatures.isEmpty, "\(scenario.name)")
        if scenario.diveDuration > 30 {
            // The simulated uncertainty falls below the 0.5 °C bound after about 24 s.
            #expect(temperatures.last?["converged"] as? Bool == true, "\(scenario.name)")
        }
        if statedOutcomes {
            #expect(received.filter { $0.topic == "gateway/\(id)/submersion/ascent-warning" }.count == scenario.expectedAscentWarnings, "\(scenario.name)")
            #expect(
                received.filter { $0.topic == "gateway/\(id)/submersion/safety-stop" }.count == (scenario.expectsSafetyStopHint == true ? 1 : 0),
                "\(scenario.name)")
        }
    }

    @Test("each scenario yields exactly its depth states (retained) and one dive; a device without the entitlement gets notEntitled and no state")
    func scenarios() async throws {
        let broker = try await TestBroker.started()
        let scenarios = DiveScenario.presets
        let unentitled = DiveScenario.approachingMaxDepth(deviceId: "dive-nodepth")
        let registry = try writeRegistry(broker, scenarios: scenarios, extra: [unentitled.deviceId: "altimeter"])
        let frames = (scenarios + [unentitled]).flatMap { $0.frames(startDate: Self.startDate) }
        let received = try await run(broker, registry: registry, frames: frames)

        for scenario in scenarios { try check(scenario, in: received, statedOutcomes: true) }

        // No entitlement: every submersion frame refused with notEntitled (CMError 110), nothing derived.
        let errors = received.filter { $0.topic == "gateway/dive-nodepth/errors" }.map(object)
        #expect(!errors.isEmpty)
        #expect(Set(errors.compactMap { $0["code"] as? String }) == ["notEntitled"])
        #expect(Set(errors.compactMap { $0["cmError"] as? Int }) == [110])
        #expect(Set(errors.compactMap { $0["stream"] as? String }) == ["submersion/event", "submersion/measurement", "submersion/temperature"])
        #expect(!received.contains { $0.topic.hasPrefix("gateway/dive-nodepth/submersion/") })
        #expect(!received.contains { $0.topic.hasSuffix("/errors") && !$0.topic.hasPrefix("gateway/dive-nodepth/") }, "entitled devices have no errors")

        // The broker kept each device's last depth state: a late subscriber gets notSubmerged.
        let (lateClient, late) = try await TestClients.observer(broker, subscribedTo: ["gateway/+/submersion/depth-state"])
        let retained = try await late.wait("\(scenarios.count) retained depth states") { $0.count >= scenarios.count }
        #expect(Set(retained.map(\.topic)) == Set(scenarios.map { "gateway/\($0.deviceId)/submersion/depth-state" }))
        for message in retained {
            #expect(message.retain)
            #expect(object(message)["state"] as? String == "notSubmerged")
        }
        await lateClient.shutdown()
    }

    @Test("independently generated dive profiles: the published states follow the contract's rule")
    func randomProfiles() async throws {
        let broker = try await TestBroker.started()
        let scenarios = (1...10).map { DiveScenario.random(seed: UInt64($0) * 7_919) }
        let registry = try writeRegistry(broker, scenarios: scenarios)
        let received = try await run(broker, registry: registry, frames: scenarios.flatMap { $0.frames(startDate: Self.startDate) })
        for scenario in scenarios { try check(scenario, in: received, statedOutcomes: false) }
        #expect(!received.contains { $0.topic.hasSuffix("/errors") })
    }
}
