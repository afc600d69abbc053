import Foundation
import BrokerTestSupport
import MQTTTransport
import Testing

/// The libmosquitto transport against a real mosquitto.
@Suite("MQTT client against a real broker")
struct MQTTClientTests {
    @Test("publishes at every QoS with MQTT 5 properties and receives them", arguments: MQTTQoS.allCases)
    func roundTrip(qos: MQTTQoS) async throws {
        let broker = try await TestBroker.started()
        let collector = MessageCollector()
        let subscriber = try await TestClients.subscribed(broker, to: ["t/#"], qos: .exactlyOnce, onMessage: collector.handler)
        let publisher = try await TestClients.connected(try TestClients.configuration(broker))

        let properties = MQTTProperties(
            contentType: "application/json", messageExpiryInterval: 120, responseTopic: "reply/here",
            correlationData: [1, 2, 3, 255],
            userProperties: [.init(name: "a", value: "1"), .init(name: "a", value: "2"), .init(name: "b", value: "x")])
        try await publisher.publish(MQTTMessage(topic: "t/1", string: "{\"k\":1}", qos: qos, properties: properties))
        #expect(publisher.statistics.publishesAcknowledged == 1)

        let received = try await collector.wait("the message on t/1") { $0.contains { $0.topic == "t/1" } }
        let message = try #require(received.first)
        #expect(message.payloadString == "{\"k\":1}")
        // The read-ahead parsers need to decode the payload where it is (no copy).
        #expect(message.payload.capacity >= message.payload.count + MQTTMessage.receivedPayloadReadAhead)
        #expect(message.qos == qos)
        #expect(message.properties.contentType == "application/json")
        #expect(message.properties.responseTopic == "reply/here")
        #expect(message.properties.correlationData == [1, 2, 3, 255])
        #expect(message.properties.userProperties == properties.userProperties)
        let expiry = try #require(message.properties.messageExpiryInterval)
        #expect(expiry <= 120 && expiry >= 110)
        await publisher.shutdown()
        await subscriber.shutdown()
    }

    @Test("bounds outstanding publishes and still delivers every one")
    func boundedInflight() async throws {
        let broker = try await TestBroker.started()
        let (subscriber, collector) = try await TestClients.observer(broker, subscribedTo: ["load/#"])
        var configuration = try TestClients.configuration(broker)
        configuration.maximumInflightPublishes = 4
        let publisher = try await TestClients.connected(configuration)
        let count = 2_000
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in stride(from: worker, to: count, by: 8) {
                        try await publisher.send(MQTTMessage(topic: "load/\(index)", string: "\(index)"))
                        #expect(publisher.statistics.publishesInFlight <= 4)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(await publisher.flush(timeout: 20))
        let statistics = publisher.statistics
        #expect(statistics.publishesAcknowledged == UInt64(count))
        #expect(statistics.publishesFailed == 0)
        #expect(statistics.publishWaits > 0, "8 concurrent senders over 4 slots must have waited")
        let received = try await collector.wait("all \(count) messages") { $0.count >= count }
        #expect(Set(received.map(\.payloadString)).count == count)
        await publisher.shutdown()
        await subscriber.shutdown()
    }

    @Test("re-subscribes after a broker restart that lost the session")
    func resubscribesAfterBrokerRestart() async throws {
        let broker = try await TestBroker.started()
        let collector = MessageCollector()
        let events = EventRecorder()
        let subscriber = try await TestClients.subscribed(broker, to: ["r/#"], onMessage: collector.handler, onEvent: events.handler)

        try await broker.restarted()
        // The subscriber notices the dead connection, reconnects without a session (the broker
        // has no persistence) and must subscribe again by itself.
        try await events.wait("a reconnect without session") { events in
            events.filter { $0 == .connected(sessionPresent: false) }.count >= 2
        }
        let publisher = try await TestClients.connected(try TestClients.configuration(broker))
        try await publisher.publish(MQTTMessage(topic: "r/after-restart", string: "hello"))
        try await collector.wait("a message published after the restart") { $0.contains { $0.topic == "r/after-restart" } }
        #expect(subscriber.statistics.connections >= 2)
        await publisher.shutdown()
        await subscriber.shutdown()
    }

    @Test("a persistent session receives what was published while it was away")
    func persistentSession() async throws {
        let broker = try await TestBroker.started()
        let configuration = try TestClients.keptSession(broker, prefix: "persistent").configuration
        let first = try await TestClients.connected(configuration)
        try await first.subscribe(["p/#"], qos: .atLeastOnce)
        await first.shutdown()

        let publisher = try await TestClients.connected(try TestClients.configuration(broker))
        for index in 0..<5 { try await publisher.publish(MQTTMessage(topic: "p/\(index)", string: "\(index)")) }

        let collector = MessageCollector()
        let events = EventRecorder()
        let second = try await TestClients.connected(configuration, onMessage: collector.handler, onEvent: events.handler)
        #expect(events.events.contains(.connected(sessionPresent: true)))
        let received = try await collector.wait("the 5 queued messages") { $0.count >= 5 }
        #expect(received.map(\.payloadString) == ["0", "1", "2", "3", "4"])
        await second.shutdown()
        await publisher.shutdown()
    }

    @Test("keeps retrying when no broker listens, then connects once one starts")
    func retriesUntilBrokerAppears() async throws {
        // Held bound until the broker starts: a free port only named could meet the broker of a
        // test running in parallel, to which the client would connect before failing twice.
        let reservation = try PortReservation()
        let port = reservation.port
        let events = EventRecorder()
        var configuration = MQTTClientConfiguration(broker: BrokerURL(host: "127.0.0.1", port: port), clientID: "retry-test")
        configuration.reconnect = .init(initialDelay: 0.05, maximumDelay: 0.2)
        let client = try MQTTClient(configuration: configuration, logger: TestClients.logger, onEvent: events.handler)
        client.start()
        try await events.wait("two failed attempts") { $0.filter { if case .connectFailed = $0 { true } else { false } }.count >= 2 }
        #expect(!events.events.contains { if case .connected = $0 { true } else { false } })
        reservation.release()
        let broker = try await TestBroker.started(port: port)
        try await client.waitUntilConnected(timeout: 10)
        #expect(client.statistics.isConnected)
        await client.shutdown()
        _ = broker
    }

    @Test("the network thread carries its configured name, as top -H and perf show it")
    func namedNetworkThread() async throws {
        let broker = try await TestBroker.started()
        var configuration = try TestClients.configuration(broker)
        configuration.threadName = "mqtt-name-test"
        let client = try await TestClients.connected(configuration)
        #expect(Self.threadNames().contains("mqtt-name-test"))
        await client.shutdown()
    }

    /// The kernel's names of this process's threads.
    private static func threadNames() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8) }
            .map { $0.trimmingCharacters(in: .newlines) }
    }

    @Test("a graceful shutdown does not fire the will")
    func gracefulShutdownKeepsWillUnsent() async throws {
        let broker = try await TestBroker.started()
        let (watcher, collector) = try await TestClients.observer(broker, subscribedTo: ["will/#", "done/#"])
        var configuration = try TestClients.configuration(broker)
        configuration.will = MQTTMessage(topic: "will/client", string: "gone")
        let client = try await TestClients.connected(configuration)
        await client.shutdown()
        // A marker published after the shutdown: once it arrives, a will would have too
        // (the broker sends the will when it processes the disconnect).
        let marker = try await TestClients.connected(try TestClients.configuration(broker))
        try await marker.publish(MQTTMessage(topic: "done/marker", string: "x"))
        let received = try await collector.wait("the marker") { $0.contains { $0.topic == "done/marker" } }
        #expect(!received.contains { $0.topic == "will/client" })
        await marker.shutdown()
        await watcher.shutdown()
    }

    @Test("a graceful shutdown in the middle of a burst of publishes does not fire the will")
    func shutdownDuringBurstKeepsWillUnsent() async throws {
        let broker = try await TestBroker.started()
        let (watcher, collector) = try await TestClients.observer(broker, subscribedTo: ["will/#", "done/#"])
        // Several rounds: whether an acknowledgement arrives while DISCONNECT waits behind the
        // burst depends on timing, and one round may miss it.
        for round in 0..<5 {
            var configuration = try TestClients.configuration(broker)
            configuration.will = MQTTMessage(topic: "will/client-\(round)", string: "gone")
            configuration.maximumInflightPublishes = 5_000
            let client = try await TestClients.connected(configuration)
            for index in 0..<5_000 {
                try await client.send(MQTTMessage(topic: "burst/\(round)", string: "\(index)"))
            }
            // Acknowledgements are streaming in while the client disconnects.
            await client.shutdown()
        }
        let marker = try await TestClients.connected(try TestClients.configuration(broker))
        try await marker.publish(MQTTMessage(topic: "done/marker", string: "x"))
        let received = try await collector.wait("the marker") { $0.contains { $0.topic == "done/marker" } }
        let wills = received.filter { $0.topic.hasPrefix("will/") }.map(\.topic)
        #expect(wills.isEmpty, "the broker published the will of a client that disconnected normally: \(wills)")
        await marker.shutdown()
        await watcher.shutdown()
    }
}
