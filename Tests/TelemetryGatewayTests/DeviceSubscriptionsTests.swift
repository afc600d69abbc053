import CoreMetrics
import Locking
import MQTTTransport
import Testing

@testable import TelemetryCore
@testable import TelemetryGateway

/// Partitioned mode's per-device subscriptions without a broker: what is subscribed when,
/// make-before-break across a warm-up, discovery frames held until their SUBACK.
@Suite struct DeviceSubscriptionsTests {
    /// Records what the subscriptions ask of the connection.
    final class Connection: InboundConnection {
        let log = LockedState<[String]>([])
        func start() {}
        func waitUntilConnected(timeout: Double) async throws {}
        func subscribe(_ filters: [String], qos: MQTTQoS, identifier: Int?) async throws {}
        func request(_ filters: [String], qos: MQTTQoS, identifier: Int?) {
            log.withLock { $0 += filters.map { "+\($0) id \(identifier ?? 0)" } }
        }
        func unsubscribe(_ filters: [String]) { log.withLock { $0 += filters.map { "-\($0)" } } }
        func shutdown() async {}
        var statistics: MQTTClientStatistics { MQTTClientStatistics() }
        func take() -> [String] {
            log.withLock { log in
                let taken = log
                log = []
                return taken
            }
        }
    }

    /// A view, its gate and its subscriptions, wired as the router wires them: a plan change
    /// goes to the gate first, then to the subscriptions, which keep what the gate hands over.
    static func make(me: String, warmup: Double = 0) -> (ClusterView, DeviceSubscriptions, Connection, OwnershipGate) {
        let metrics = ClusterMetrics(factory: NOOPMetricsHandler.instance)
        let view = ClusterView(me: me, expiry: 5, warmup: warmup, metrics: metrics, checksSelf: false)
        let gate = OwnershipGate(view: view, scheme: TopicScheme(), contextDevices: 100, metrics: metrics)
        let subscriptions = DeviceSubscriptions(view: view, scheme: TopicScheme(), metrics: metrics, limit: 100, heldBytesLimit: 1_000)
        let connection = Connection()
        subscriptions.attach(connection)
        view.observe { plan in
            _ = gate.planChanged(plan)
            _ = subscriptions.planChanged(plan, keeping: gate.handingOver)
        }
        return (view, subscriptions, connection, gate)
    }

    static func held(_ device: String, _ stream: String, at time: Double) -> DeviceSubscriptions.HeldFrame {
        .init(record: JournalRecord(topic: "wearables/\(device)/\(stream)", payload: Array("{}".utf8), retained: false, receivedAt: time), ticket: nil, shadow: false)
    }

    @Test("a discovery stream's copy through the device's filter is the duplicate; without identifiers nothing is")
    func duplicates() {
        #expect(DeviceSubscriptions.isDuplicate(stream: .hello, identifiers: [2]))
        #expect(!DeviceSubscriptions.isDuplicate(stream: .hello, identifiers: [1]))
        #expect(!DeviceSubscriptions.isDuplicate(stream: .status, identifiers: [2, 1]), "one merged copy is kept")
        #expect(!DeviceSubscriptions.isDuplicate(stream: .hello, identifiers: []))
        #expect(!DeviceSubscriptions.isDuplicate(stream: .batchedAccelerometer, identifiers: [2]))
        #expect(TopicScheme().device(ofInboundFilter: "wearables/w-1/#") == "w-1")
        #expect(TopicScheme().device(ofInboundFilter: "wearables/+/#") == nil)
    }

    @Test("a discovered device is subscribed once owned; its discovery frames wait for the SUBACK and then go in order")
    func holdUntilAcknowledged() {
        let (view, subscriptions, connection, _) = Self.make(me: "a")
        let device = OwnershipGateTests.devices(ownedBy: "a", among: ["a", "b"])[0]
        let other = OwnershipGateTests.devices(ownedBy: "b", among: ["a", "b"])[0]
        view.announce("b", .online, at: 1)
        subscriptions.seen(Substring(device))
        subscriptions.seen(Substring(other))
        #expect(connection.take().isEmpty, "owning nothing yet: nothing subscribed")

        view.setSelf(.online, at: 2)
        #expect(connection.take() == ["+wearables/\(device)/# id 2"], "only the owned device")
        #expect(subscriptions.hold(Self.held(device, "hello", at: 3), key: device, role: .owner))
        #expect(subscriptions.hold(Self.held(device, "status", at: 4), key: device, role: .owner))
        #expect(!subscriptions.hold(Self.held(other, "hello", at: 4), key: other, role: .none), "not processed here: not held")
        let released = subscriptions.acknowledged(["wearables/\(device)/#"])
        #expect(released.map(\.record.topic) == ["wearables/\(device)/hello", "wearables/\(device)/status"])
        #expect(!subscriptions.hold(Self.held(device, "hello", at: 5), key: device, role: .owner), "acknowledged: frames flow")

        subscriptions.connectionLost()
        #expect(subscriptions.hold(Self.held(device, "status", at: 6), key: device, role: .owner), "after a lost connection, until the new SUBACK")
        #expect(subscriptions.acknowledged(["wearables/\(device)/#"]).count == 1)
    }

    @Test("a join: the next owner subscribes at the announcement (make-before-break); the old owner unsubscribes a silent device at the switch and one it shares with the next owner only once that owner's claim is notified")
    func makeBeforeBreak() {
        let (viewA, subsA, connectionA, gateA) = Self.make(me: "a", warmup: 3)
        let (viewB, subsB, connectionB, _) = Self.make(me: "b", warmup: 3)
        let moving = OwnershipGateTests.devices(ownedBy: "b", among: ["a", "b"], count: 2)
        let (busy, silent) = (moving[0], moving[1])
        let staying = OwnershipGateTests.devices(ownedBy: "a", among: ["a", "b"])[0]
        viewA.setSelf(.online, at: 1)
        for device in moving + [staying] {
            subsA.seen(Substring(device))
            subsB.seen(Substring(device))
            let (frame, key) = OwnershipGateTests.frame(device, "motion", at: 2)
            #expect(gateA.admit(frame, key: key, inbound: true).owned)
        }
        _ = subsA.planChanged(viewA.plan(at: 2))
        #expect(Set(connectionA.take()) == Set((moving + [staying]).map { "+wearables/\($0)/# id 2" }))

        // b announces itself online; each reads it at 10 on its own clock: both switch at 13.
        viewB.announce("a", .online, at: 10)
        viewB.setSelf(.online, at: 10)
        viewA.announce("b", .online, at: 10)
        #expect(Set(connectionB.take()) == Set(moving.map { "+wearables/\($0)/# id 2" }), "the next owner subscribes as the warm-up starts")
        #expect(connectionA.take().isEmpty, "the old owner keeps its subscriptions during the warm-up")
        let (during, busyKey) = OwnershipGateTests.frame(busy, "motion", at: 11)
        #expect(gateA.admit(during, key: busyKey, inbound: true).owned)
        _ = viewA.plan(at: 12.9)
        #expect(connectionA.take().isEmpty)
        _ = viewA.plan(at: 13)
        #expect(connectionA.take() == ["-wearables/\(silent)/#"], "the silent device at the switch; the busy one is handing over")
        _ = viewB.plan(at: 13)
        #expect(connectionB.take().isEmpty, "the new owner keeps them")
        // b's claim of the busy device is notified to a (ClusterRuntime.handedOver does these two).
        #expect(gateA.handedOver(DeviceID(busy)!, plan: viewA.plan(at: 13.1)))
        subsA.handedOver(busy, plan: viewA.plan(at: 13.1))
        #expect(connectionA.take() == ["-wearables/\(busy)/#"], "unsubscribed at the claim")
    }
}
