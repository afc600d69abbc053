import BrokerTestSupport
import Foundation
import MQTTTransport
import Testing

/// What a broker's testimony (docs/scale-out.md, *Not done yet*) would rest on, with mosquitto: a client subscribed to a device's output
/// topics receives what another client publishes there, with its subscription identifier, live and,
/// for a kept session, queued while it was away and delivered on its return before a mark
/// published after it.
@Suite("Echo subscription")
struct EchoSubscriptionTests {
    /// Resumes the session of `kept`, subscribes a mark topic, has `publisher` publish the mark,
    /// and returns what the session delivered up to and with the mark, in order.
    static func resumeUntilMark(_ kept: MQTTClientConfiguration, publisher: MQTTClient, device: String) async throws -> [MQTTMessage] {
        let resumed = MessageCollector()
        let again = try await TestClients.connected(kept, onMessage: resumed.handler)
        try await again.subscribe(["mark/\(device)"], qos: .atLeastOnce, options: SubscriptionOptions(identifier: 3, retainHandling: .never))
        try await publisher.publish(MQTTMessage(topic: "mark/\(device)", string: "mark", qos: .atLeastOnce))
        let received = try await resumed.wait(timeout: 20, "the mark") { $0.contains { $0.topic == "mark/\(device)" } }
        await again.shutdown()
        return received
    }

    @Test("an output published by another client comes back through the output filter with its identifier; queued for a kept session, it comes before a later mark")
    func echoes() async throws {
        let broker = try await TestBroker.started()
        let device = "echo-\(UUID().uuidString.prefix(8))"
        let (_, kept) = try TestClients.keptSession(broker, prefix: "echo")
        let first = MessageCollector()
        let subscriber = try await TestClients.connected(kept, onMessage: first.handler)
        try await subscriber.subscribe(["wearables/\(device)/#", "gateway/\(device)/#"], qos: .atLeastOnce, options: SubscriptionOptions(identifier: 2, retainHandling: .never))
        let publisher = try await TestClients.connected(try TestClients.configuration(broker))
        try await publisher.publish(MQTTMessage(topic: "gateway/\(device)/connection", string: #"{"eventId":"live"}"#, qos: .atLeastOnce))
        let live = try await first.wait(timeout: 20, "the live echo") { !$0.isEmpty }
        #expect(live.first?.properties.subscriptionIdentifiers == [2])
        await subscriber.shutdown()

        try await publisher.publish(MQTTMessage(topic: "gateway/\(device)/connection", string: #"{"eventId":"queued"}"#, qos: .atLeastOnce))
        let received = try await Self.resumeUntilMark(kept, publisher: publisher, device: device)
        #expect(received.map(\.payloadString) == [#"{"eventId":"queued"}"#, "mark"])
        #expect(received.first?.properties.subscriptionIdentifiers == [2])
        await publisher.shutdown()
    }

    @Test("every echo queued for a kept session while it was away comes before a mark published after its return", arguments: [20, 2000])
    func manyQueued(count: Int) async throws {
        let broker = try await TestBroker.started()
        let device = "echo-\(UUID().uuidString.prefix(8))"
        var (_, kept) = try TestClients.keptSession(broker, prefix: "echo")
        kept.receiveMaximum = 64
        let first = MessageCollector()
        let subscriber = try await TestClients.connected(kept, onMessage: first.handler)
        try await subscriber.subscribe(["gateway/\(device)/#"], qos: .atLeastOnce, options: SubscriptionOptions(identifier: 2, retainHandling: .never))
        await subscriber.shutdown()
        let publisher = try await TestClients.connected(try TestClients.configuration(broker))
        for index in 0..<count { try await publisher.send(MQTTMessage(topic: "gateway/\(device)/connection", string: "\(index)", qos: .atLeastOnce)) }
        #expect(await publisher.flush(timeout: 20))
        let received = try await Self.resumeUntilMark(kept, publisher: publisher, device: device)
        #expect(received.count - 1 == count, "\(received.count - 1) of \(count) echoes before the mark")
        await publisher.shutdown()
    }

    @Test("echoes in flight to a client that never acknowledged them, and those queued behind, come to the client that resumes the session before a later mark", arguments: [20, 300])
    func inFlight(count: Int) async throws {
        let broker = try await TestBroker.started()
        let device = "echo-\(UUID().uuidString.prefix(8))"
        let (_, kept) = try TestClients.keptSession(broker, prefix: "echo")
        var gated = kept
        gated.acknowledgementGate = AcknowledgementGateTests.FixedGate(allows: false)
        gated.holdsReconnect = { true }
        let first = MessageCollector()
        let events = EventRecorder()
        let subscriber = try await TestClients.connected(gated, onMessage: first.handler, onEvent: events.handler)
        try await subscriber.subscribe(["gateway/\(device)/#"], qos: .atLeastOnce, options: SubscriptionOptions(identifier: 2, retainHandling: .never))
        let publisher = try await TestClients.connected(try TestClients.configuration(broker))
        for index in 0..<count { try await publisher.send(MQTTMessage(topic: "gateway/\(device)/connection", string: "\(index)", qos: .atLeastOnce)) }
        #expect(await publisher.flush(timeout: 20))
        try await events.wait(timeout: 20, "held") { $0.contains(.reconnectHeld) }
        for index in count..<(count + 50) { try await publisher.send(MQTTMessage(topic: "gateway/\(device)/connection", string: "\(index)", qos: .atLeastOnce)) }
        #expect(await publisher.flush(timeout: 20))
        let received = try await Self.resumeUntilMark(kept, publisher: publisher, device: device)
        let before = received.prefix { $0.topic != "mark/\(device)" }.count
        #expect(before == count + 50, "\(before) of \(count + 50) echoes before the mark (the first client had \(first.messages.count))")
        await subscriber.shutdown()
        await publisher.shutdown()
    }
}
