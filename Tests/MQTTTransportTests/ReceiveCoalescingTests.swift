import Foundation
import BrokerTestSupport
import MQTTTransport
import Testing

/// `receiveCoalescing` against a real mosquitto: a burst is read in few wake-ups, nothing is
/// lost or reordered, and a pause never holds back what another thread asks of the connection.
@Suite("Receive coalescing against a real broker")
struct ReceiveCoalescingTests {
    @Test("a burst is read in few wake-ups, every message in order; without coalescing the thread never pauses")
    func burst() async throws {
        let broker = try await TestBroker.started()
        var configuration = try TestClients.configuration(broker)
        configuration.receiveCoalescing = 0.2
        let (coalescing, coalesced) = try await TestClients.observer(configuration, subscribedTo: ["burst/#"])
        let (plain, immediate) = try await TestClients.observer(broker, subscribedTo: ["burst/#"])

        let publisher = try await TestClients.connected(try TestClients.configuration(broker))
        let count = 500
        for index in 0..<count {
            try await publisher.send(MQTTMessage(topic: "burst/\(index % 7)", string: "\(index)", qos: .atLeastOnce))
        }
        #expect(await publisher.flush(timeout: 20))

        for collector in [coalesced, immediate] {
            let received = try await collector.wait("all \(count) messages") { $0.count >= count }
            #expect(received.map(\.payloadString) == (0..<count).map { "\($0)" }, "every message once, in publishing order")
        }
        let pauses = coalescing.statistics.receivePauses
        #expect(pauses >= 1, "the burst's reader paused to let messages gather")
        // Pausing after every message would make it one pause per message: the burst arrives
        // faster than 0.2 s per message, so each pause must have gathered many.
        #expect(pauses <= UInt64(count / 10), "\(pauses) pauses for \(count) messages")
        #expect(plain.statistics.receivePauses == 0)
        await publisher.shutdown()
        await plain.shutdown()
        await coalescing.shutdown()
    }

    @Test("what gathered in the socket is read in groups of at most 64, each group's PUBACKs written at its end")
    func readGroups() async throws {
        let broker = try await TestBroker.started()
        let count = 600
        // Narrow (20): the broker sends no more than 20 unacknowledged messages, so the burst
        // arrives in full only if every group's PUBACKs leave (corked, then sent). Wide (1,000):
        // the pauses let hundreds gather, more than one group's worth.
        var subscribers: [(client: MQTTClient, collector: MessageCollector)] = []
        for receiveMaximum in [20, 1_000] {
            var configuration = try TestClients.configuration(broker)
            configuration.receiveCoalescing = 0.2
            configuration.receiveMaximum = receiveMaximum
            subscribers.append(try await TestClients.observer(configuration, subscribedTo: ["groups/#"]))
        }

        let publisher = try await TestClients.connected(try TestClients.configuration(broker))
        for index in 0..<count {
            try await publisher.send(MQTTMessage(topic: "groups/\(index % 5)", string: "\(index)", qos: .atLeastOnce))
        }
        #expect(await publisher.flush(timeout: 20))
        for (client, collector) in subscribers {
            let received = try await collector.wait(timeout: 20, "all \(count) messages") { $0.count >= count }
            #expect(received.map(\.payloadString) == (0..<count).map { "\($0)" }, "every message once, in publishing order")
            let statistics = client.statistics
            #expect(statistics.messagesReceived == UInt64(count))
            // One group per message would be the old one round per message.
            #expect(statistics.readGroups >= 1 && statistics.readGroups < UInt64(count / 2), "\(statistics.readGroups) groups for \(count) messages")
        }
        #expect(subscribers[1].client.statistics.readGroups >= UInt64((count + 63) / 64), "no group holds more than 64 messages")
        await publisher.shutdown()
        for (client, _) in subscribers { await client.shutdown() }
    }

    @Test("a long pause ends at once when another thread queues a packet or shuts the client down")
    func pauseEndsAtWakeUp() async throws {
        let broker = try await TestBroker.started()
        var configuration = try TestClients.configuration(broker)
        // Far longer than every bound below: only an early wake-up lets them hold.
        configuration.receiveCoalescing = 30
        // Its SUBACK is a read, so the thread pauses as soon as nothing more is queued.
        let (subscriber, collector) = try await TestClients.observer(configuration, subscribedTo: ["first"])
        let publisher = try await TestClients.connected(try TestClients.configuration(broker))
        try await publisher.publish(MQTTMessage(topic: "first", string: "m", qos: .atLeastOnce))

        // A SUBSCRIBE queued by this thread wakes the paused network thread: it is sent, and
        // the message waiting in the socket is read with it. (Not `subscribe`, which waits for
        // the SUBACK: that arrives after the next pause began, as any inbound packet may.)
        let started = ContinuousClock.now
        subscriber.request(["second"], qos: .atLeastOnce)
        try await broker.waitForSubscription(clientID: configuration.clientID, filter: "second", timeout: 10)
        try await collector.wait(timeout: 10, "the message held in the socket during the pause") { $0.contains { $0.topic == "first" } }
        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(subscriber.statistics.receivePauses >= 1)

        // Reading the message started another 30 s pause.
        let stopping = ContinuousClock.now
        await subscriber.shutdown()
        #expect(ContinuousClock.now - stopping < .seconds(10), "a shutdown during a 30 s pause does not wait it out")
        await publisher.shutdown()
    }
}
