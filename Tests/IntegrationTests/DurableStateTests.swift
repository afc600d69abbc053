import BrokerTestSupport
import Foundation
import MQTTTransport
import TelemetryCore
import TelemetrySimulation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Device state across a crash: a diver is mid-dive when the gateway is killed with SIGKILL; the
/// restarted gateway continues the dive from the device state store and the journal.
@Suite("Durable device state across a crash")
struct DurableStateTests {
    @Test("kill -9 mid-dive: after the restart the dive summary comes once, with the dive's real start and depth")
    func killMidDive() async throws {
        let broker = try await TestBroker.started()
        let scenario = DiveScenario.deepDive()
        let start = 1_700_000_000.0
        let frames = scenario.frames(startDate: start)
        let device = scenario.deviceId
        let (observer, collector) = try await TestClients.observer(broker, subscribedTo: ["gateway/\(device)/submersion/#", "gateway/status"])

        // WG_FAULT_STATE_OFF=1 runs the control: no state store, expected to FAIL (the restarted
        // gateway knows neither the hello nor the open dive).
        let control = ProcessInfo.processInfo.environment["WG_FAULT_STATE_OFF"] == "1" ? ["--set", "state.path=null"] : []
        let arguments = ["--set", "mqtt.clientId=gw-dive", "--set", "registry.file=null"] + control
        let data = broker.directory.appendingPathComponent("gateway-data")
        let first = try GatewayProcess(broker: broker, arguments: arguments, dataDirectory: data)
        try await first.waitUntilSubscribed()
        let diver = try await TestClients.connected(try TestClients.configuration(broker))

        // Up to ten seconds into the submerged part, then the crash.
        let split = try #require(frames.firstIndex { $0.time > scenario.submergeTime + 10 })
        for frame in frames[..<split] {
            try await diver.publish(MQTTMessage(topic: frame.topic(), payload: frame.payload, qos: .atLeastOnce, retain: frame.retain))
        }
        try await collector.wait(timeout: 30, "the dive under way") { messages in
            messages.contains { $0.topic.hasSuffix("/submersion/depth-state") && String(decoding: $0.payload, as: UTF8.self).contains("\"submerged") }
        }
        first.signal(SIGKILL)
        _ = try await first.waitForExit(timeout: 10)
        #expect(!collector.messages.contains { $0.topic.hasSuffix("/submersion/dive") }, "the dive ended before the crash; the test proved nothing")

        let second = try GatewayProcess(broker: broker, arguments: arguments, dataDirectory: data)
        try await second.waitUntilSubscribed()
        for frame in frames[split...] {
            try await diver.publish(MQTTMessage(topic: frame.topic(), payload: frame.payload, qos: .atLeastOnce, retain: frame.retain))
        }
        try await collector.wait(timeout: 60, "the dive summary") { messages in messages.contains { $0.topic.hasSuffix("/submersion/dive") } }
        // A clean stop publishes the offline status last; once it is here, every earlier event is too.
        second.signal(SIGTERM)
        #expect(try await second.waitForExit(timeout: 40) == 0, "log:\n\(second.log)")
        let messages = try await collector.wait(timeout: 10, "the offline status") { messages in
            messages.contains { $0.topic == "gateway/status" && String(decoding: $0.payload, as: UTF8.self).contains("\"reason\":\"shutdown\"") }
        }
        let dives = messages.filter { $0.topic == "gateway/\(device)/submersion/dive" }
        #expect(Set(dives.map { Self.field("eventId", of: $0) }).count == 1, "one dive (duplicates carry the same eventId): \(dives.count) messages")
        let dive = try #require(dives.first)
        let startDate = try #require(Self.number("startDate", of: dive))
        let maxDepth = try #require(Self.number("maxDepth", of: dive))
        #expect(abs(startDate - (start + scenario.submergeTime)) < 0.001, "the dive began before the crash")
        #expect(abs(maxDepth - scenario.reportedMaxDepth()) < 1e-6)
        await diver.shutdown()
        await observer.shutdown()
    }

    private static func object(_ message: MQTTMessage) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any]) ?? [:]
    }

    private static func field(_ key: String, of message: MQTTMessage) -> String {
        String(describing: object(message)[key] ?? "none")
    }

    private static func number(_ key: String, of message: MQTTMessage) -> Double? {
        (object(message)[key] as? NSNumber)?.doubleValue
    }
}
