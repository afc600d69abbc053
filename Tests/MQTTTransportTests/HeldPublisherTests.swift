import BrokerTestSupport
import Foundation
import MQTTTransport
import Synchronization
import Testing

/// A publisher whose owner holds its reconnection (a clustered run adopted, or past its lease's
/// deadline: a stand-in may hold its session) against a real mosquitto: held, it refuses to
/// publish; released, it connects afresh, and what libmosquitto kept for the old connection (a
/// publish the broker never acknowledged) is dropped, never sent late.
@Suite("Held publisher")
struct HeldPublisherTests {
    @Test("a publish the dead broker never acknowledged is dropped when the held publisher is released, not sent again; held, it refuses to publish; released, it publishes")
    func releaseDropsTheUnsent() async throws {
        let broker = try await TestBroker.started()
        let root = "held/\(UUID().uuidString.prefix(8))"
        let collector = MessageCollector()
        let observerEvents = EventRecorder()
        let observer = try await TestClients.subscribed(
            try TestClients.configuration(broker), to: ["\(root)/#"], onMessage: collector.handler, onEvent: observerEvents.handler)
        let holding = Atomic<Bool>(false)
        var configuration = try TestClients.configuration(broker)
        configuration.cleanStart = false
        configuration.sessionExpiry = 60
        configuration.holdsReconnect = { holding.load(ordering: .relaxed) }
        let events = EventRecorder()
        let publisher = try await TestClients.connected(configuration, onEvent: events.handler)
        try await publisher.publish(MQTTMessage(topic: "\(root)/before", string: "before", qos: .atLeastOnce))
        _ = try await collector.wait(timeout: 20, "the first publish") { !$0.isEmpty }

        // The broker hangs, the publish goes out unanswered, the broker dies with it unread.
        broker.freeze()
        let outcome = Mutex<PublishOutcome?>(nil)
        try await publisher.send(MQTTMessage(topic: "\(root)/unsent", string: "unsent", qos: .atLeastOnce)) { result in outcome.withLock { $0 = result } }
        holding.store(true, ordering: .relaxed)
        broker.kill()
        try await events.wait(timeout: 20, "the held reconnect") { $0.contains(.reconnectHeld) }
        await #expect(throws: MQTTTransportError.self, "a held publisher took a publish") {
            try await publisher.send(MQTTMessage(topic: "\(root)/while-held", string: "while-held", qos: .atLeastOnce))
        }
        try broker.start()
        // The observer back and subscribed again (its session was lost with the broker).
        try await observerEvents.wait(timeout: 30, "the observer subscribed again") { events in
            events.filter { if case .subscribed = $0 { true } else { false } }.count >= 2
        }

        holding.store(false, ordering: .relaxed)
        publisher.resumeReconnecting()
        try await events.wait(timeout: 30, "the reconnection after the release") { events in
            guard let held = events.lastIndex(of: .reconnectHeld) else { return false }
            return events[held...].contains { if case .connected = $0 { true } else { false } }
        }
        #expect(outcome.withLock { $0 } == .abandoned, "the unsent publish was not told abandoned: \(String(describing: outcome.withLock { $0 }))")
        try await publisher.publish(MQTTMessage(topic: "\(root)/after", string: "after", qos: .atLeastOnce))
        let received = try await collector.wait(timeout: 20, "the publish after the release") { $0.contains { $0.topic == "\(root)/after" } }
        #expect(received.map(\.topic) == ["\(root)/before", "\(root)/after"], "sent after the release: \(received.map(\.topic))")
        await publisher.shutdown()
        await observer.shutdown()
    }
}
