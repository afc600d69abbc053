import BrokerTestSupport
import MQTTTransport
import Testing

/// A device frame's W3C `traceparent` (MQTT 5 user property) reaches every event the frame
/// produced, through a real broker and the journal.
@Suite("Trace context from frames to events")
struct TraceContextTests {
    @Test("the connection event of a traced status frame carries its traceparent; an untraced one none")
    func traceparentReachesEvents() async throws {
        let broker = try await TestBroker.started()
        let run = try await GatewayRun.start(broker)
        let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        let device = try await TestClients.connected(try TestClients.configuration(broker))
        try await device.send(
            MQTTMessage(
                topic: "wearables/traced-1/status", string: #"{"state":"online","date":1800000000}"#,
                properties: MQTTProperties(userProperties: [.init(name: "traceparent", value: traceparent)])))
        try await device.send(MQTTMessage(topic: "wearables/traced-1/status", string: #"{"state":"offline","date":1800000001}"#))
        let events = try await run.waitForEvents("connection", device: "traced-1", count: 2)
        let traced = events.filter { $0.payloadString.contains("1800000000") }
        let untraced = events.filter { $0.payloadString.contains("1800000001") }
        #expect(traced.count == 1 && untraced.count == 1)
        #expect(traced.allSatisfy { $0.properties.userProperties.contains { $0.name == "traceparent" && $0.value == traceparent } })
        #expect(untraced.allSatisfy { !$0.properties.userProperties.contains { $0.name == "traceparent" } })
        await device.shutdown()
        try await run.stop()
    }
}
