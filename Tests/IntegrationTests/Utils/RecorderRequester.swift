import BrokerTestSupport
import Foundation
import MQTTTransport

/// An app asking the gateway for recorder data with MQTT 5 request/response: it subscribes to
/// its own reply topics `replies/{requester}/#`, sends the request to
/// `gateway/{device}/recorder/query/{requester}` with a response topic there and a correlation
/// id, and collects the answers up to the final one. (On the test's anonymous broker nothing
/// proves the requester name; the shipped ACL does, see scripts/check-acl.sh.)
struct RecorderRequester {
    let client: MQTTClient
    let collector: MessageCollector
    let requester: String
    var responseTopic: String { "replies/\(requester)/answers" }

    static func connect(_ broker: TestBroker) async throws -> RecorderRequester {
        let requester = "test-\(UUID().uuidString.prefix(8))"
        let (client, collector) = try await TestClients.observer(broker, subscribedTo: ["replies/\(requester)/#"])
        return RecorderRequester(client: client, collector: collector, requester: requester)
    }

    /// The query topic of `device` in this requester's name.
    func queryTopic(_ device: String) -> String { "gateway/\(device)/recorder/query/\(requester)" }

    /// Sends `payload` to `gateway/{device}/recorder/query/{requester}` and returns every answer
    /// carrying `correlation`, in arrival order, once the final one arrived.
    func ask(_ device: String, _ payload: String, correlation: String, timeout: Double = 60) async throws -> [MQTTMessage] {
        let correlationData = Array(correlation.utf8)
        try await client.send(
            MQTTMessage(
                topic: queryTopic(device), string: payload, qos: .atLeastOnce,
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
