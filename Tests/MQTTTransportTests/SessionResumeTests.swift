import BrokerTestSupport
import Foundation
import MQTTTransport
import Testing

/// Kept sessions against a real mosquitto: resuming a persistent QoS 2 session that holds more
/// messages in flight than the resuming client's receive maximum (libmosquitto refuses QoS 2
/// deliveries beyond its receive maximum with a protocol error, and the broker resends the whole
/// in-flight list at every reconnect), and a graceful stop that ends the session.
@Suite("Resuming a kept session")
struct SessionResumeTests {
    @Test("a resumed QoS 2 session with more in flight than the receive maximum resumes after one protocol error")
    func resumesOverReceiveMaximum() async throws {
        let broker = try await TestBroker.started()
        let proxy = try TCPProxy(upstreamPort: broker.port)
        let id = "resume-\(UUID().uuidString.prefix(8))"
        // The first client, through the proxy, blocks in its first delivery: from then on it
        // acknowledges nothing, and the broker fills its receive maximum (256) with messages.
        var stuckConfiguration = MQTTClientConfiguration(broker: try BrokerURL(parsing: proxy.url), clientID: id)
        stuckConfiguration.cleanStart = false
        stuckConfiguration.sessionExpiry = 60
        let gate = WatchedState(false)
        let stuck = try await TestClients.subscribed(
            stuckConfiguration, to: ["resume/#"], qos: .exactlyOnce, onMessage: { _ in _ = gate.blockingWait(timeout: 60) { $0 ? true : nil } })
        let publisher = try await TestClients.connected(try TestClients.configuration(broker))
        for index in 0..<400 {
            try await publisher.send(MQTTMessage(topic: "resume/\(index)", string: "\(index)", qos: .exactlyOnce))
        }
        #expect(await publisher.flush(timeout: 20))
        // Gone without a word, and unable to come back.
        proxy.stop()

        var configuration = try TestClients.configuration(broker, id: id)
        configuration.cleanStart = false
        configuration.sessionExpiry = 60
        configuration.receiveMaximum = 16
        configuration.reconnect = .init(initialDelay: 0.05, maximumDelay: 0.2)
        let collector = MessageCollector()
        let events = EventRecorder()
        let resumed = try MQTTClient(configuration: configuration, logger: TestClients.logger, onMessage: collector.handler, onEvent: events.handler)
        resumed.start()
        // The blocked client is let go whatever happens (its deinit would join its thread).
        let outcome: Result<[MQTTMessage], any Error>
        do {
            try await resumed.waitUntilConnected(timeout: 10)
            try await publisher.publish(MQTTMessage(topic: "resume/after", string: "after", qos: .exactlyOnce))
            // The messages the blocked client had already received (PUBREC'd) were in its
            // memory only: the broker resends just their PUBREL. Everything else must arrive.
            outcome = .success(
                try await collector.wait(timeout: 20, "the message published after the resume") { messages in
                    messages.contains { $0.topic == "resume/after" }
                })
        } catch {
            outcome = .failure(error)
        }
        gate.update { $0 = true }
        await stuck.shutdown()
        let received = try outcome.get()
        let distinct = Set(received.map(\.payloadString))
        #expect(distinct.count >= 400 - 256, "only \(distinct.count) distinct messages")
        let drops = events.events.filter { if case .disconnected = $0 { true } else { false } }.count
        #expect(drops == 1, "the resumed session was cut \(drops) times (once expected: the broker resends more than 16); events: \(events.events)")
        #expect(events.events.contains(.connected(sessionPresent: true)))
        await resumed.shutdown()
        await publisher.shutdown()
    }

    @Test("a graceful stop ends the kept session when asked to (endsSessionAtStop), and leaves it otherwise")
    func gracefulStopEndsSession() async throws {
        let broker = try await TestBroker.started()
        for ends in [false, true] {
            let id = "ends-\(ends)-\(UUID().uuidString.prefix(6))"
            var configuration = try TestClients.configuration(broker, id: id)
            configuration.cleanStart = false
            configuration.sessionExpiry = 60
            configuration.endsSessionAtStop = ends
            let first = try await TestClients.subscribed(configuration, to: ["ends/#"], onMessage: { _ in })
            await first.shutdown()
            let events = EventRecorder()
            let again = try MQTTClient(configuration: configuration, logger: TestClients.logger, onMessage: { _ in }, onEvent: events.handler)
            again.start()
            try await again.waitUntilConnected(timeout: 10)
            #expect(events.events.contains(.connected(sessionPresent: !ends)), "endsSessionAtStop \(ends): \(events.events)")
            await again.shutdown()
        }
    }
}
