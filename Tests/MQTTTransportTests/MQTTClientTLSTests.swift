import BrokerTestSupport
import MQTTTransport
import Testing

/// TLS to a real mosquitto with a throw-away CA.
@Suite("MQTT client over TLS")
struct MQTTClientTLSTests {
    private func tlsBroker(_ certificates: TestCertificates, requireClientCertificate: Bool) async throws -> TestBroker {
        try await TestBroker.started(
            configuration: """
                cafile \(certificates.caCertificate)
                certfile \(certificates.serverCertificate)
                keyfile \(certificates.serverKey)
                require_certificate \(requireClientCertificate)
                """)
    }

    private func configuration(_ broker: TestBroker, tls: MQTTClientConfiguration.TLS) throws -> MQTTClientConfiguration {
        var configuration = try TestClients.configuration(broker)
        configuration.broker = BrokerURL(host: "127.0.0.1", port: broker.port, usesTLS: true)
        configuration.tls = tls
        return configuration
    }

    @Test("verifies the broker against the CA file and round-trips a message; mutual TLS with a client certificate")
    func roundTrip() async throws {
        let certificates = try await TestCertificates()
        let broker = try await tlsBroker(certificates, requireClientCertificate: true)
        let tls = MQTTClientConfiguration.TLS(
            caFile: certificates.caCertificate, certificateFile: certificates.clientCertificate, keyFile: certificates.clientKey)
        let (subscriber, collector) = try await TestClients.observer(try configuration(broker, tls: tls), subscribedTo: ["secure/#"])
        let publisher = try await TestClients.connected(try configuration(broker, tls: tls))
        try await publisher.publish(MQTTMessage(topic: "secure/1", string: "over tls"))
        let received = try await collector.wait("the TLS message") { !$0.isEmpty }
        #expect(received[0].payloadString == "over tls")
        await publisher.shutdown()
        await subscriber.shutdown()
    }

    @Test("an untrusted broker certificate fails visibly and keeps being retried")
    func untrustedBroker() async throws {
        let certificates = try await TestCertificates()
        let other = try await TestCertificates()
        let broker = try await tlsBroker(certificates, requireClientCertificate: false)
        let events = EventRecorder()
        let client = try MQTTClient(
            configuration: try configuration(broker, tls: .init(caFile: other.caCertificate)), logger: TestClients.logger,
            onEvent: events.handler)
        client.start()
        try await events.wait("two failed attempts") { events in
            events.filter { if case .connectFailed = $0 { true } else { false } }.count >= 2
        }
        #expect(!client.statistics.isConnected)
        #expect(client.statistics.connectionFailures >= 2)
        await client.shutdown()
    }
}
