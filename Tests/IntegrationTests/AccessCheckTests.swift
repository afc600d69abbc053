import BrokerTestSupport
import Foundation
import MQTTTransport
import TelemetryCore
import TelemetryGateway
import TelemetrySimulation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The access checks (registry → availability → authorization → entitlement → workout) end
/// to end through a real broker, with the shipped registry and capability table.
@Suite("Access checks through a real broker")
struct AccessCheckTests {
    private static let repository = TestBroker.repositoryRoot

    private func publish(_ frames: [SimulatedFrame], on client: MQTTClient) async throws {
        for frame in frames {
            try await client.send(
                MQTTMessage(
                    topic: frame.topic(), payload: frame.payload, qos: frame.qos, retain: frame.retain,
                    properties: .init(contentType: "application/json")))
        }
    }

    @Test("each rule breaker yields exactly its error code and nothing derived; a compliant device is unaffected")
    func ruleBreakers() async throws {
        let broker = try await TestBroker.started()
        var configuration = try GatewayHarness.configuration(broker: broker)
        configuration.registryFile = Self.repository.appendingPathComponent("config/devices.yml").path
        configuration.pipeline.errorReportInterval = 600
        let run = try await GatewayRun.start(broker, configuration: configuration)
        let gateway = run.gateway
        let collector = run.collector
        let observer = run.observer

        let compliant = SimulatedDevice.appleWatchUltra2(id: "watch-ultra-1")
        var generator = TrafficGenerator(seed: 3, devices: SimulatedFleet.ruleBreakers() + [compliant], startDate: 1_700_000_000)
        let frames = generator.advance(to: 30)
        let device = try await TestClients.connected(try TestClients.configuration(broker))
        try await publish(frames, on: device)
        #expect(await device.flush(timeout: 60))
        try await run.waitForMetric("gateway_frames_processed_total", atLeast: Double(frames.count))
        try await gateway.stop()
        let received = collector.messages

        func codes(_ id: String) throws -> Set<String> {
            Set(try received.filter { $0.topic == "gateway/\(id)/errors" }.compactMap { try json($0)["code"] as? String })
        }
        #expect(try codes("watch-s7-1") == ["notAvailable"])
        #expect(try codes("watch-denied-1") == ["notAuthorized"])
        #expect(try codes("watch-nodepth-1") == ["notEntitled"])
        #expect(try codes("watch-noworkout-1") == ["noActiveWorkout"])
        #expect(try codes("watch-unlisted-1") == ["unknownDevice"])
        #expect(try codes("watch-ultra-1").isEmpty, "the compliant device must not be affected")

        // CMError raw values ride along where Core Motion has one.
        let cmErrors = try Dictionary(
            received.filter { $0.topic.hasSuffix("/errors") }.map { try json($0) }.map { ($0["code"] as? String ?? "", $0["cmError"] as? Int) },
            uniquingKeysWith: { first, _ in first })
        #expect(cmErrors["notAvailable"] == 109)
        #expect(cmErrors["notAuthorized"] == 111)
        #expect(cmErrors["notEntitled"] == 110)
        #expect(cmErrors["noActiveWorkout"] == 108)
        #expect(cmErrors["unknownDevice"] == .some(nil))

        // Rejected frames reach nothing downstream: no derived topic of the refused streams.
        // Devices refused everything (denied, unlisted) publish only errors and, from their
        // control streams, availability and presence.
        let controlLeaves: Set<String> = ["errors", "availability", "connection"]
        func leaves(_ id: String) -> Set<String> {
            Set(received.filter { $0.topic.hasPrefix("gateway/\(id)/") }.map { String($0.topic.dropFirst("gateway/\(id)/".count)) })
        }
        #expect(leaves("watch-denied-1").isSubset(of: controlLeaves), "\(leaves("watch-denied-1"))")
        #expect(leaves("watch-unlisted-1") == ["errors"], "\(leaves("watch-unlisted-1"))")
        #expect(!leaves("watch-nodepth-1").contains { $0.hasPrefix("submersion/") }, "\(leaves("watch-nodepth-1"))")
        for id in ["watch-s7-1", "watch-noworkout-1"] {
            #expect(!leaves(id).contains("swing"), "\(id): \(leaves(id))")
        }
        // The compliant Ultra's dive is derived.
        #expect(leaves("watch-ultra-1").contains("submersion/depth-state"), "\(leaves("watch-ultra-1"))")
        #expect(!received.contains { $0.topic == "gateway/watch-unlisted-1/availability" })
        // Accepted frames of the compliant device were counted as such.
        #expect(gateway.metrics.sum("gateway_frames_accepted_total", labels: ["stream": "submersion/measurement"]) > 0)
        await device.shutdown()
        await observer.shutdown()
    }

    @Test("availability is retained and republished when the authorization changes")
    func availabilityFollowsAuthorization() async throws {
        let broker = try await TestBroker.started()
        let run = try await GatewayRun.start(broker)
        let gateway = run.gateway
        let collector = run.collector
        let observer = run.observer

        let device = try await TestClients.connected(try TestClients.configuration(broker))
        try await device.publish(
            MQTTMessage(
                topic: "wearables/auth-1/hello",
                string: #"{"model":"Apple Watch Ultra 2","platform":"watchOS","osVersion":"10.1","app":"com.example.dive","authorization":"authorized"}"#))
        let first = try await collector.wait("availability") { $0.contains { $0.topic == "gateway/auth-1/availability" } }
        let initial = try json(try #require(first.last { $0.topic == "gateway/auth-1/availability" }))
        #expect(initial["model"] as? String == "Apple Watch Ultra 2")
        #expect(initial["authorization"] as? String == "authorized")
        #expect((initial["capabilities"] as? [String])?.contains("waterSubmersion") == true)
        #expect((initial["capabilities"] as? [String])?.contains("batchedSensors") == true)
        #expect(initial["maximumDepth"] as? Double == 40, "the open test registry grants submersion.full")

        try await device.publish(MQTTMessage(topic: "wearables/auth-1/authorization", string: #"{"status":"denied","date":1700000100}"#))
        let updated = try await collector.wait("availability after denial") { messages in
            messages.filter { $0.topic == "gateway/auth-1/availability" }.count >= 2
        }
        #expect(try json(try #require(updated.last { $0.topic == "gateway/auth-1/availability" }))["authorization"] as? String == "denied")

        // Data is now refused with notAuthorized (111).
        try await device.publish(
            MQTTMessage(topic: "wearables/auth-1/altimeter", string: #"{"timestamp":10,"relativeAltitude":0.5,"pressure":101.2}"#))
        let errors = try await collector.wait("notAuthorized") { $0.contains { $0.topic == "gateway/auth-1/errors" } }
        let error = try json(try #require(errors.first { $0.topic == "gateway/auth-1/errors" }))
        #expect(error["code"] as? String == "notAuthorized")
        #expect(error["cmError"] as? Int == 111)

        let (lateClient, late) = try await TestClients.observer(broker, subscribedTo: ["gateway/auth-1/availability"])
        let retained = try await late.wait("retained availability") { !$0.isEmpty }
        #expect(retained[0].retain)
        #expect(try json(retained[0])["authorization"] as? String == "denied")
        try await gateway.stop()
        await lateClient.shutdown()
        await device.shutdown()
        await observer.shutdown()
    }

    @Test("SIGHUP reloads the registry: an entitlement is granted without a restart")
    func reloadOnHangup() async throws {
        let broker = try await TestBroker.started()
        let registry = broker.directory.appendingPathComponent("devices.yml")
        try "open: false\ndevices:\n  dive-1:\n    entitlements: [altimeter]\n".write(to: registry, atomically: true, encoding: .utf8)
        let (observer, collector) = try await TestClients.observer(broker, subscribedTo: ["gateway/#"])
        let gateway = try GatewayProcess(
            broker: broker, arguments: ["--registry", registry.path, "--set", "metrics.publishInterval=0.2", "--set", "pipeline.errorReportInterval=600"])
        try await collector.wait("online") { $0.contains { $0.topic == "gateway/status" } }

        let device = try await TestClients.connected(try TestClients.configuration(broker))
        let measurement = #"{"date":1700000000,"depth":2.5,"pressure":126.4,"surfacePressure":101.3,"submersionState":"submergedDeep"}"#
        try await device.publish(
            MQTTMessage(
                topic: "wearables/dive-1/hello",
                string: #"{"model":"Apple Watch Ultra 2","platform":"watchOS","osVersion":"10.1","app":"com.example.dive","authorization":"authorized"}"#))
        try await device.publish(MQTTMessage(topic: "wearables/dive-1/submersion/measurement", string: measurement))
        let refused = try await collector.wait("notEntitled") { $0.contains { $0.topic == "gateway/dive-1/errors" } }
        #expect(try json(try #require(refused.first { $0.topic == "gateway/dive-1/errors" }))["code"] as? String == "notEntitled")

        try "open: false\ndevices:\n  dive-1:\n    entitlements: [altimeter, submersion.shallow]\n".write(to: registry, atomically: true, encoding: .utf8)
        gateway.signal(SIGHUP)
        let republished = try await collector.wait("availability with the new entitlement") { messages in
            messages.contains { $0.topic == "gateway/dive-1/availability" && $0.payloadString.contains("submersion.shallow") }
        }
        let availability = try json(try #require(republished.last { $0.topic == "gateway/dive-1/availability" }))
        #expect(availability["maximumDepth"] as? Double == 6)

        try await device.publish(MQTTMessage(topic: "wearables/dive-1/submersion/measurement", string: measurement))
        try await collector.wait("the measurement to be accepted") { messages in
            guard let metrics = PrometheusText.latest(in: messages) else { return false }
            return metrics.sum("gateway_frames_accepted_total", labels: ["stream": "submersion/measurement"]) >= 1
        }
        gateway.signal(SIGTERM)
        #expect(try await gateway.waitForExit(timeout: 20) == 0)
        #expect(gateway.log.contains("reloaded the device registry"))
        await device.shutdown()
        await observer.shutdown()
    }
}
