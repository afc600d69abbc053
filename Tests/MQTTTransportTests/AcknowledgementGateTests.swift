import BrokerTestSupport
import Foundation
import MQTTTransport
import Synchronization
import Testing

/// The acknowledgement gate against a real mosquitto: a group the gate refuses leaves the
/// connection without its PUBACKs, so the broker delivers it again to whoever resumes the
/// session (a clustered gateway's stand-in); a group it allows is acknowledged and gone.
@Suite("Acknowledgement gate")
struct AcknowledgementGateTests {
    /// Answers every group with `allows`, counting the questions.
    final class FixedGate: AcknowledgementGate {
        let allows: Bool
        let asked = Atomic<Int>(0)
        init(allows: Bool) { self.allows = allows }
        func decide(groupReadAt: ContinuousClock.Instant, waitingAtMost: Duration) -> AcknowledgementDecision {
            asked.add(1, ordering: .relaxed)
            return allows ? .acknowledge : .refuse
        }
        func interrupt() {}
    }

    @Test("a group the gate refuses is not acknowledged: the client that resumes the session receives it again; one it allows is not delivered again", arguments: [false, true])
    func refusedGroupComesAgain(allows: Bool) async throws {
        let broker = try await TestBroker.started()
        let (id, kept) = try TestClients.keptSession(broker, prefix: "gate-\(allows)")
        let topicRoot = "gate/\(id)"
        let gate = FixedGate(allows: allows)
        var gated = kept
        gated.acknowledgementGate = gate
        // Refused, it must not come back by itself: the resuming client below is the one that gets the session.
        gated.holdsReconnect = { true }
        let firstMessages = MessageCollector()
        let firstEvents = EventRecorder()
        let first = try await TestClients.subscribed(gated, to: ["\(topicRoot)/#"], onMessage: firstMessages.handler, onEvent: firstEvents.handler)
        let publisher = try await TestClients.connected(try TestClients.configuration(broker))
        let count = 20
        for index in 0..<count { try await publisher.send(MQTTMessage(topic: "\(topicRoot)/\(index)", string: "\(index)", qos: .atLeastOnce)) }
        #expect(await publisher.flush(timeout: 20))
        if allows {
            try await firstMessages.wait(timeout: 20, "all \(count) messages") { $0.count >= count }
            await first.shutdown()
        } else {
            try await firstMessages.wait(timeout: 20, "a first group") { !$0.isEmpty }
            // The refused group closed the connection.
            try await firstEvents.wait(timeout: 20, "the held reconnect") { events in events.contains(.reconnectHeld) }
        }
        #expect(gate.asked.load(ordering: .relaxed) >= 1)
        let firstReceived = Set(firstMessages.messages.map(\.payloadString))

        let resumedMessages = MessageCollector()
        let resumed = try await TestClients.connected(kept, onMessage: resumedMessages.handler)
        let end = "\(topicRoot)/end"
        try await publisher.publish(MQTTMessage(topic: end, string: "end", qos: .atLeastOnce))
        let received = try await resumedMessages.wait(timeout: 20, "the message published after the resume") { $0.contains { $0.topic == end } }
        let again = Set(received.filter { $0.topic != end }.map(\.payloadString))
        if allows {
            #expect(again.isEmpty, "acknowledged messages delivered again: \(again.sorted())")
        } else {
            // Everything: what the refused group held, and what the broker had not sent yet.
            #expect(again == Set((0..<count).map(String.init)), "resumed with \(again.count) of \(count); the first client had \(firstReceived.count)")
            #expect(firstReceived.isSubset(of: again))
        }
        await resumed.shutdown()
        if !allows { await first.shutdown() }
        await publisher.shutdown()
    }
}
