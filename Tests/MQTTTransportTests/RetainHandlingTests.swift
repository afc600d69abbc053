import BrokerTestSupport
import Foundation
import MQTTTransport
import Testing

/// MQTT 5 retain handling against the real mosquitto: what partitioned mode's discovery and
/// device filters rest on (a resumed session, a stand-in's included, is not sent the fleet's
/// retained messages again; a device's filter brings none).
@Suite("Retain handling against a real broker")
struct RetainHandlingTests {
    @Test("whenNew: retained messages at a fresh session's SUBSCRIBE, none when a resumed session subscribes again (atEverySubscribe: again); never: none")
    func retainHandling() async throws {
        let broker = try await TestBroker.started()
        let publisher = try await TestClients.connected(try TestClients.configuration(broker))
        for device in ["d1", "d2", "d3"] {
            try await publisher.publish(MQTTMessage(topic: "rh/\(device)/hello", string: device, qos: .atLeastOnce, retain: true))
            try await publisher.publish(MQTTMessage(topic: "rh/\(device)/status", string: device, qos: .atLeastOnce, retain: true))
        }
        let (_, configuration) = try TestClients.keptSession(broker, prefix: "retain")

        /// Subscribes (as the gateway would) in a session of `configuration`, then waits for a
        /// marker published after the SUBACKs: every retained message the SUBSCRIBEs brought
        /// came before it.
        func retainedAtSubscribe(sessionPresent: Bool) async throws -> [MQTTMessage] {
            let collector = MessageCollector()
            let events = WatchedState<[MQTTClientEvent]>([])
            let client = try await TestClients.connected(configuration, onMessage: collector.handler, onEvent: { event in events.update { $0.append(event) } })
            #expect(await events.wait(timeout: 10) { $0.contains(.connected(sessionPresent: sessionPresent)) }, "session present: \(sessionPresent)")
            try await client.subscribe(["rh/+/hello"], qos: .atLeastOnce, options: SubscriptionOptions(identifier: 1, retainHandling: .whenNew))
            try await client.subscribe(["rh/+/status"], qos: .atLeastOnce, options: SubscriptionOptions(identifier: 4))
            try await client.subscribe(["rh/d1/#", "rh/d2/#", "rh/end"], qos: .atLeastOnce, options: SubscriptionOptions(identifier: 2, retainHandling: .never))
            try await publisher.publish(MQTTMessage(topic: "rh/end", string: "end", qos: .atLeastOnce))
            let received = try await collector.wait("the end marker") { $0.contains { $0.topic == "rh/end" } }
            await client.shutdown()
            return received.filter { $0.topic != "rh/end" }
        }

        let fresh = try await retainedAtSubscribe(sessionPresent: false)
        let resumed = try await retainedAtSubscribe(sessionPresent: true)
        let describe = { (messages: [MQTTMessage]) in messages.map { "\($0.topic) \($0.properties.subscriptionIdentifiers)" }.sorted() }
        let summary = "fresh \(describe(fresh)); resumed \(describe(resumed))"
        // A fresh session: each retained hello once, through the discovery filter only (the
        // device filters asked for none), and each status through its atEverySubscribe filter.
        #expect(describe(fresh.filter { $0.topic.hasSuffix("/hello") }) == ["rh/d1/hello [1]", "rh/d2/hello [1]", "rh/d3/hello [1]"], "\(summary)")
        #expect(describe(fresh.filter { $0.topic.hasSuffix("/status") }) == ["rh/d1/status [4]", "rh/d2/status [4]", "rh/d3/status [4]"], "\(summary)")
        // The resumed session holds every filter: whenNew and never bring nothing, the broker
        // would send them again otherwise (the status filter shows it).
        #expect(resumed.filter { $0.topic.hasSuffix("/hello") }.isEmpty, "\(summary)")
        #expect(describe(resumed) == ["rh/d1/status [4]", "rh/d2/status [4]", "rh/d3/status [4]"], "\(summary)")
        await publisher.shutdown()
    }
}
