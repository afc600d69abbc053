import BrokerTestSupport
import Foundation
import MQTTTransport

/// An app asking the gateway for recorder data with MQTT 5 request/response: it subscribes to
/// its own response topic, sends the request with that topic and a correlation id, and
/// collects the answers up to the final one.
struct RecorderRequester {
    let client: MQTTClient
    let collector: MessageCollector
    let responseTopic: String

    static func connect(_ broker: TestBroker) async throws -> RecorderRequester {
        let collector = MessageCollector()
        let client = try await TestClients.connected(try TestClients.configuration(broker), onMessage: collector.handler)
        let responseTopic = "apps/test-\(UUID().uuidString.prefix(8))/replies"
        try await client.subscribe([responseTopic], qos: .atLeastOnce)
        return RecorderRequester(client: client, collector: collector, responseTopic: responseTopic)
    }

    /// Sends `payload` to `gateway/{device}/recorder/query` and returns every answer carrying
    /// `correlation`, in arrival order, once the final one arrived.
    func ask(_ device: String, _ payload: String, correlation: String, timeout: Double = 60) async throws -> [MQTTMessage] {
        let correlationData = Array(correlation.utf8)
        try await client.send(
            MQTTMessage(
                topic: "gateway/\(device)/recorder/query", string: payload, qos: .atLeastOnce,
                properties: MQTTProperties(contentType: "application/json", responseTopic: responseTopic, correlationData: correlationData)))
        let mine: @Sendable ([MQTTMessage]) -> [MQTTMessage] = { messages in
            messages.filter { $0.properties.correlationData == correlationData }
        }
        let received = try await collector.wait(timeout: timeout, "the final answer to \(correlation)") { messages in
            mine(messages).contains { Self.object($0)["final"] as? Bool == true }
        }
        return mine(received)
    }

    static func object(_ message: MQTTMessage) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any]) ?? [:]
    }

    func shutdown() async { await client.shutdown() }
}
