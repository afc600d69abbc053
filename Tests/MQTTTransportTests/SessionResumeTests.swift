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

    @Test("a mark published to a resumed session while it delivers its backlog arrives behind everything the session queued (the stand-in's end of the backlog)")
    func markComesBehindTheBacklog() async throws {
        let broker = try await TestBroker.started()
        let (id, configuration) = try TestClients.keptSession(broker, prefix: "mark")
        let mark = "mark/\(id)"
        // The session subscribes (the backlog's topics and the mark's) and goes away; 10,000
        // QoS 1 messages queue for it.
        let first = try await TestClients.subscribed(configuration, to: ["backlog/#", mark], onMessage: { _ in })
        await first.shutdown()
        let publisher = try await TestClients.connected(try TestClients.configuration(broker))
        let backlog = 10_000
        for index in 0..<backlog { try await publisher.send(MQTTMessage(topic: "backlog/\(index % 50)", string: "\(index)", qos: .atLeastOnce)) }
        #expect(await publisher.flush(timeout: 60))

        // The resumed client holds the first message it gets until the mark is published: the
        // backlog is then being delivered for certain.
        let collector = MessageCollector()
        let gate = WatchedState(false)
        let holding = WatchedState(false)
        let resumed = try MQTTClient(
            configuration: configuration, logger: TestClients.logger,
            onMessage: { message in
                holding.update { $0 = true }
                _ = gate.blockingWait(timeout: 60) { $0 ? true : nil }
                collector.handler(message)
            }, onEvent: { _ in })
        resumed.start()
        let outcome: Result<[MQTTMessage], any Error>
        do {
            guard await holding.wait(timeout: 30, until: { $0 }) else { throw TestFailure("no backlog message arrived within 30 s") }
            try await publisher.publish(MQTTMessage(topic: mark, string: "end", qos: .atLeastOnce))
            gate.update { $0 = true }
            outcome = .success(try await collector.wait(timeout: 60, "the mark") { $0.contains { $0.topic == mark } })
        } catch {
            outcome = .failure(error)
        }
        gate.update { $0 = true }
        let received = try outcome.get()
        let position = try #require(received.firstIndex { $0.topic == mark })
        let before = Set(received[..<position].map(\.payloadString))
        #expect(before.count == backlog, "every queued message before the mark: \(before.count) of \(backlog)")
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
