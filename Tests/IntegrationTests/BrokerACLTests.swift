import BrokerTestSupport
import Foundation
import MQTTTransport
import TelemetryGateway
import Testing

/// The shipped secure broker (config/mosquitto/secure.conf, acl, gateway.acl) with the
/// development identities of scripts/make-dev-pki.sh, on a real mosquitto over TLS.
/// scripts/check-acl.sh checks every rule; these tests drive the gateway's own code against it.
@Suite("Secure broker: identities, ACL, gateway sessions")
struct BrokerACLTests {
    private static func isDenied(_ error: any Error) -> Bool {
        (error as? MQTTTransportError)?.code == .rejectedByBroker && (error as? MQTTTransportError)?.reasonCode == 0x87
    }

    @Test("a device writes only its own topics, whatever client id it picks")
    func deviceCannotImpersonateAnother() async throws {
        let secure = try await SecureBroker()
        let (reader, collector) = try await TestClients.observer(try secure.client("monitor"), subscribedTo: ["gateway/#"])
        let gateway = try await TestClients.subscribed(
            try gatewayClient(secure, clientID: "acl-test-gateway"), to: ["wearables/#"], onMessage: collector.handler)

        for clientID in ["watch-s9-2", "watch-s9-2/status", "wearable-gateway-in"] {
            let device = try await TestClients.connected(try secure.client("watch-s9-1", clientID: clientID))
            // Denied first, allowed second: the broker keeps one client's messages in order, so
            // once the allowed one arrived, the denied one would have arrived before it.
            await #expect(performing: {
                try await device.publish(MQTTMessage(topic: "wearables/watch-s9-2/status", string: #"{"state":"offline"}"#))
            }, throws: Self.isDenied)
            await #expect(performing: {
                try await device.publish(MQTTMessage(topic: "gateway/status", string: #"{"state":"offline"}"#))
            }, throws: Self.isDenied)
            try await device.publish(MQTTMessage(topic: "wearables/watch-s9-1/status", string: clientID))
            try await collector.wait("the device's own status (client id \(clientID))") { $0.contains { $0.payloadString == clientID } }
            await device.shutdown()
        }
        #expect(collector.messages.map(\.topic) == Array(repeating: "wearables/watch-s9-1/status", count: 3))
        #expect(secure.broker.log.contains("as watch-s9-1 (p5"))
        #expect(!secure.broker.log.contains("as watch-s9-2"), "a connection kept the client id it picked")
        await gateway.shutdown()
        await reader.shutdown()
    }

    @Test("a non-gateway login asking for the gateway's client ids neither takes them over nor fires its will")
    func gatewaySessionsProtected() async throws {
        let secure = try await SecureBroker()
        let identity = secure.gatewayIdentity
        var configuration = try GatewayHarness.configuration(broker: secure.broker, clientID: "wearable-gateway")
        configuration.mqtt.broker = try BrokerURL(parsing: identity.url)
        configuration.mqtt.tlsCAFile = identity.caFile
        configuration.mqtt.tlsCertificateFile = identity.certificateFile
        configuration.mqtt.tlsKeyFile = identity.keyFile
        let gateway = try GatewayHarness(configuration: configuration)
        gateway.start()
        let (observer, monitor) = try await TestClients.observer(try secure.client("monitor"), subscribedTo: ["gateway/#"])
        try await monitor.wait("gateway online over TLS") { $0.contains { $0.topic == "gateway/status" } }

        // Each attacker connects (as itself: the broker renames it) and publishes on its own topic.
        for (name, clientID) in [("watch-s9-1", "wearable-gateway-out"), ("app-1", "wearable-gateway-in"), ("watch-s9-2", "wearable-gateway-out")] {
            let attacker = try await TestClients.connected(try secure.client(name, clientID: clientID))
            try await attacker.publish(MQTTMessage(topic: "wearables/\(name)/status", string: #"{"state":"online"}"#))
            await attacker.shutdown()
        }
        // Both gateway sessions still work: a device's frame goes in through -in and its
        // derived event out through -out. A will fired by a takeover would precede it.
        let device = try await TestClients.connected(try secure.client("watch-s9-3"))
        try await device.publish(
            MQTTMessage(
                topic: "wearables/watch-s9-3/hello",
                string: #"{"model":"Apple Watch Series 9","platform":"watchOS","osVersion":"10.1","app":"com.example","authorization":"authorized"}"#))
        try await device.publish(MQTTMessage(topic: "wearables/watch-s9-3/status", string: #"{"state":"online"}"#))
        let messages = try await monitor.wait("an event about watch-s9-3") { $0.contains { $0.topic.hasPrefix("gateway/watch-s9-3/") } }
        let statuses = messages.filter { $0.topic == "gateway/status" }.map { $0.payloadString }
        #expect(statuses.count == 1 && statuses.allSatisfy { $0.contains(#""state":"online""#) }, "gateway/status: \(statuses)")
        #expect(!secure.broker.log.contains("already connected"), "a session was taken over:\n\(secure.broker.log)")
        await device.shutdown()
        await observer.shutdown()
        try await gateway.stop()
    }

    @Test("wearable-sim --identity-dir connects each device with its own certificate; every frame is accepted")
    func simulatorUsesDeviceIdentities() async throws {
        let secure = try await SecureBroker()
        let pki = secure.pki
        let (gateway, collector) = try await TestClients.observer(
            try gatewayClient(secure, clientID: "acl-test-sim-reader"), subscribedTo: ["wearables/#"])

        let (status, output) = try await runChildProcess(
            GatewayProcess.executable.deletingLastPathComponent().appendingPathComponent("wearable-sim"),
            [
                "--broker", "mqtts://localhost:\(secure.broker.port)", "--ca-file", pki.appendingPathComponent("ca.crt").path,
                "--identity-dir", pki.appendingPathComponent("clients").path, "--devices", "3", "--seed", "1", "--duration", "1",
            ])
        // Exit 0 and "failed 0": no publish was refused (a denial is PUBACK 0x87, a failure).
        #expect(status == 0, "\(output)")
        #expect(output.contains("failed 0"), "\(output)")

        // The last thing each device sends is its offline status: once all arrived, everything did.
        let received = try await collector.wait("every device's final status") { messages in
            Set(messages.filter { $0.topic.hasSuffix("/status") && $0.payloadString.contains("offline") }.map(\.topic)).count >= 3
        }
        let devices = Set(received.map { $0.topic.split(separator: "/")[1] })
        #expect(devices.count == 3, "\(devices)")
        for device in devices {
            #expect(secure.broker.log.contains("as \(device) (p5, c1, k30, u'\(device)')"), "the broker log names no login of \(device)")
        }
        await gateway.shutdown()
    }

    private func gatewayClient(_ secure: SecureBroker, clientID: String) throws -> MQTTClientConfiguration {
        let identity = secure.gatewayIdentity
        var configuration = MQTTClientConfiguration(
            broker: try BrokerURL(parsing: identity.url), clientID: clientID,
            tls: .init(caFile: identity.caFile, certificateFile: identity.certificateFile, keyFile: identity.keyFile))
        configuration.reconnect = .init(initialDelay: 0.05, maximumDelay: 0.5)
        return configuration
    }
}
