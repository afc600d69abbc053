import BrokerTestSupport
import Foundation
import MQTTTransport
import Testing

/// The shipped broker ACL (config/mosquitto/acl + passwd) on a real mosquitto.
@Suite("Broker ACL")
struct BrokerACLTests {
    private func secureBroker() throws -> TestBroker {
        let directory = TestBroker.repositoryRoot.appendingPathComponent("config/mosquitto")
        return try TestBroker(
            configuration: """
                password_file \(directory.appendingPathComponent("passwd").path)
                acl_file \(directory.appendingPathComponent("acl").path)
                """,
            allowAnonymous: false)
    }

    private func client(_ broker: TestBroker, id: String, user: String, password: String, onMessage: MQTTClient.MessageHandler? = nil)
        async throws -> MQTTClient
    {
        var configuration = try TestClients.configuration(broker, id: id)
        configuration.username = user
        configuration.password = password
        return try await TestClients.connected(configuration, onMessage: onMessage)
    }

    @Test("a device can publish only under its own client id; the gateway reads every device")
    func deviceCannotImpersonateAnother() async throws {
        let broker = try secureBroker()
        let collector = MessageCollector()
        let gateway = try await client(broker, id: "gateway-acl-test", user: "gateway", password: "gateway-dev-password", onMessage: collector.handler)
        try await gateway.subscribe(["wearables/#"], qos: .atLeastOnce)
        let device = try await client(broker, id: "watch-1", user: "device", password: "device-dev-password")

        // Denied first, allowed second: the broker keeps one client's messages in order, so
        // once the allowed one arrived, the denied one would have arrived before it.
        await #expect {
            try await device.publish(MQTTMessage(topic: "wearables/watch-2/status", string: #"{"state":"offline"}"#))
        } throws: { error in
            (error as? MQTTTransportError)?.code == .rejectedByBroker && (error as? MQTTTransportError)?.reasonCode == 0x87
        }
        await #expect(throws: MQTTTransportError.self) {
            try await device.publish(MQTTMessage(topic: "gateway/status", string: #"{"state":"offline"}"#))
        }
        try await device.publish(MQTTMessage(topic: "wearables/watch-1/status", string: #"{"state":"online"}"#))
        let received = try await collector.wait("the device's own status") { $0.contains { $0.topic == "wearables/watch-1/status" } }
        #expect(received.map(\.topic) == ["wearables/watch-1/status"])
        await device.shutdown()
        await gateway.shutdown()
    }

    @Test("wrong credentials are refused and retried, never silently dead")
    func wrongPasswordIsRefused() async throws {
        let broker = try secureBroker()
        let events = EventRecorder()
        var configuration = try TestClients.configuration(broker, id: "watch-3")
        configuration.username = "device"
        configuration.password = "wrong"
        let client = try MQTTClient(configuration: configuration, logger: TestClients.logger, onEvent: events.handler)
        client.start()
        try await events.wait("two refusals") { events in
            events.filter { if case .refused = $0 { true } else { false } }.count >= 2
        }
        #expect(!client.statistics.isConnected)
        await client.shutdown()
    }
}
