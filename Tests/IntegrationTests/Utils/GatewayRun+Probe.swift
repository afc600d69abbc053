import Foundation
import MQTTTransport
import WearableGatewayTesting

extension GatewayRun {
    /// Returns once a gateway on `broker` (in-process or a child process) processes frames: a
    /// probe device's status is published (again, until answered) and its
    /// `gateway/{id}/connection` awaited. `gateway/status` online comes from the publisher,
    /// which may connect before the subscriber has subscribed, and the broker drops frames
    /// nobody subscribed to.
    static func waitUntilProcessing(_ broker: TestBroker, probe: String = "probe-\(UUID().uuidString.prefix(6))") async throws {
        let answers = MessageCollector()
        let client = try await TestClients.connected(try TestClients.configuration(broker), onMessage: answers.handler)
        try await client.subscribe(["gateway/\(probe)/connection"], qos: .atLeastOnce)
        for attempt in 0..<40 {
            try await client.publish(MQTTMessage(topic: "wearables/\(probe)/status", string: #"{"state":"\#(attempt % 2 == 0 ? "online" : "offline")"}"#))
            if (try? await answers.wait(timeout: 0.5, "probe answered") { !$0.isEmpty }) != nil {
                await client.shutdown()
                return
            }
        }
        await client.shutdown()
        throw TestFailure("the gateway never processed a probe frame")
    }
}
