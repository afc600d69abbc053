@testable import GatewayJournal
import CoreMetrics
import Locking
import MQTTTransport
import Ownership
import Testing

@testable import TelemetryCore
@testable import TelemetryGateway

/// Clustered per-device subscriptions without a broker: what is subscribed when a partition
/// comes and goes, discovery frames held until their SUBACK, duplicates, reconnects.
@Suite struct PartitionSubscriptionsTests {
    /// Records what the subscriptions ask of the connection.
    final class Connection: InboundConnection {
        let log = LockedState<[String]>([])
        func start() {}
        func waitUntilConnected(timeout: Double) async throws {}
        func subscribe(_ filters: [String], qos: MQTTQoS, options: SubscriptionOptions) async throws {}
        func request(_ filters: [String], qos: MQTTQoS, options: SubscriptionOptions) {
            // A filter asking for retained messages is marked: a device's filter must not.
            log.withLock { $0 += filters.map { "+\($0) id \(options.identifier ?? 0)" + (options.retainHandling == .never ? "" : " retained") } }
        }
        func unsubscribe(_ filters: [String]) { log.withLock { $0 += filters.map { "-\($0)" } } }
        func shutdown() async {}
        func resumeReconnecting() {}
        var statistics: MQTTClientStatistics { MQTTClientStatistics() }
        func take() -> [String] {
            log.withLock { log in
                defer { log = [] }
                return log.sorted()
            }
        }
    }

    let partitions = OwnershipPartitions()

    func make(heldBytes: Int = 1_000) -> (PartitionSubscriptions, Connection) {
        let subscriptions = PartitionSubscriptions(
            scheme: TopicScheme(), partitions: partitions, metrics: OwnershipMetrics(factory: NOOPMetricsHandler.instance), heldBytesLimit: heldBytes)
        let connection = Connection()
        subscriptions.attach(connection)
        return (subscriptions, connection)
    }

    /// Device ids in `partition`, found by search (the hash is fixed).
    func devices(in partition: Int, count: Int) -> [String] {
        (0..<200_000).lazy.map { "watch-\($0)" }.filter { self.partitions.partition(of: $0) == partition }.prefix(count).map { $0 }
    }

    static func held(_ device: String, _ stream: String) -> RoutedFrame {
        let topic = "wearables/\(device)/\(stream)"
        return RoutedFrame(
            frame: InboundFrame(topic: topic, payload: Array("{}".utf8), receivedAt: 1), command: .frame(TopicScheme(inboundRoot: "wearables", outboundRoot: "gateway").parseInbound(topic)),
            shard: 0, release: nil, publication: Publication(role: .owner(epoch: 1)))
    }

    @Test("of a discovery message, the copy right after an equal one through the other filter is the duplicate, whichever came first; a lone copy, a merged one, one without identifiers or another stream is not")
    func duplicates() {
        let (subscriptions, _) = make()
        let hello = Array(#"{"model":"Watch"}"#.utf8)
        let status = Array(#"{"state":"online","date":1}"#.utf8)
        // mosquitto's order: the device's copy, then the discovery filter's.
        #expect(!subscriptions.absorbs(topic: "wearables/w-1/hello", payload: hello, identifiers: [2]))
        #expect(subscriptions.absorbs(topic: "wearables/w-1/hello", payload: hello, identifiers: [1]))
        // The other order.
        #expect(!subscriptions.absorbs(topic: "wearables/w-1/status", payload: status, identifiers: [1]))
        #expect(subscriptions.absorbs(topic: "wearables/w-1/status", payload: status, identifiers: [2]))
        // Queued before a broker restart: one copy each, through the device's filter; none dropped.
        let later = Array(#"{"state":"offline","date":2}"#.utf8)
        #expect(!subscriptions.absorbs(topic: "wearables/w-1/status", payload: later, identifiers: [2]))
        #expect(!subscriptions.absorbs(topic: "wearables/w-1/status", payload: status, identifiers: [2]))
        // The device sending the same status again: a new pair, its first copy kept.
        #expect(!subscriptions.absorbs(topic: "wearables/w-1/status", payload: status, identifiers: [2]), "the same payload through the same filter is a new message")
        #expect(subscriptions.absorbs(topic: "wearables/w-1/status", payload: status, identifiers: [1]))
        #expect(!subscriptions.absorbs(topic: "wearables/w-1/status", payload: status, identifiers: [2]), "a pair is dropped once")
        // Another device's copy in between is no twin; a different payload is no twin.
        #expect(!subscriptions.absorbs(topic: "wearables/w-2/status", payload: status, identifiers: [1]))
        #expect(!subscriptions.absorbs(topic: "wearables/w-1/status", payload: status, identifiers: [1]))
        #expect(!subscriptions.absorbs(topic: "wearables/w-1/status", payload: later, identifiers: [2]))
        #expect(!subscriptions.absorbs(topic: "wearables/w-1/status", payload: status, identifiers: [2, 1]), "one merged copy is kept")
        #expect(!subscriptions.absorbs(topic: "wearables/w-1/status", payload: status, identifiers: [2, 1]), "and the next merged one")
        #expect(!subscriptions.absorbs(topic: "wearables/w-1/hello", payload: hello, identifiers: []))
        #expect(!subscriptions.absorbs(topic: "wearables/w-1/imu/accelerometer", payload: hello, identifiers: [2]))
        #expect(!subscriptions.absorbs(topic: "wearables/w-1/imu/accelerometer", payload: hello, identifiers: [1]))
        #expect(subscriptions.filterOptions == SubscriptionOptions(identifier: 1, retainHandling: .whenNew), "retained discovery messages only for a session without the filter")
        #expect(!FleetSubscription().absorbs(topic: "wearables/w-1/hello", payload: hello, identifiers: [2]), "single mode drops nothing")
    }

    @Test("a backlog mark: subscribed under its own identifier, published only after its SUBACK, done when it arrives (absorbed, not a frame)")
    func backlogMark() async throws {
        let (subscriptions, connection) = make()
        let topic = "gateway/instances/gw-b/stand-in/run-2"
        let published = LockedState(0)
        let delivering = Task {
            try await subscriptions.deliverMark(topic: topic) { published.withLock { $0 += 1 } }
        }
        let asked = ContinuousClock.now + .seconds(60)  // generous: parallel suites on two cores
        while connection.take() != ["+\(topic) id 3"] {
            guard ContinuousClock.now < asked else {
                Issue.record("the mark was never subscribed")
                delivering.cancel()
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(published.withLock { $0 } == 0, "published before its SUBACK")
        #expect(!subscriptions.absorbs(topic: topic, payload: [], identifiers: [1]), "the same topic through another filter is not the mark")
        #expect(subscriptions.connectionEvent(.subscribed(filters: [topic])).isEmpty)
        while published.withLock({ $0 }) == 0, ContinuousClock.now < asked { try await Task.sleep(for: .milliseconds(10)) }
        #expect(published.withLock { $0 } == 1)
        #expect(subscriptions.absorbs(topic: topic, payload: [], identifiers: [3]), "the mark is the subscriptions' own")
        try await delivering.value
    }

    @Test("a gained partition's listed devices are subscribed at once; a lost one's are unsubscribed; another partition's stay")
    func partitionsComeAndGo() {
        let (subscriptions, connection) = make()
        let mine = devices(in: 7, count: 3)
        let other = devices(in: 8, count: 1)
        subscriptions.partitionChanged(.warming(partition: 7), devices: mine.compactMap(DeviceID.init))
        #expect(connection.take() == mine.sorted().map { "+wearables/\($0)/# id 2" })
        subscriptions.partitionChanged(.gained(partition: 7, epoch: 3), devices: mine.compactMap(DeviceID.init))
        #expect(connection.take().isEmpty, "subscribed already while warming: nothing sent again")
        subscriptions.partitionChanged(.gained(partition: 8, epoch: 1), devices: other.compactMap(DeviceID.init))
        #expect(connection.take() == ["+wearables/\(other[0])/# id 2"])
        subscriptions.partitionChanged(.lost(partition: 7), devices: [])
        #expect(connection.take() == mine.sorted().map { "-wearables/\($0)/#" })
        subscriptions.partitionChanged(.lost(partition: 7), devices: [])
        #expect(connection.take().isEmpty)
    }

    @Test("a partition is subscribed only on a connected subscriber once every device's SUBACK came; a lost connection makes it wait again, a kept session's CONNACK ends that")
    func subscribedAfterSubacks() {
        let (subscriptions, _) = make()
        let mine = devices(in: 5, count: 2)
        #expect(!subscriptions.isSubscribed(partition: 5), "not connected yet")
        _ = subscriptions.connectionEvent(.connected(sessionPresent: false))
        #expect(subscriptions.isSubscribed(partition: 5), "connected, no device to wait for")
        subscriptions.partitionChanged(.warming(partition: 5), devices: mine.compactMap(DeviceID.init))
        #expect(!subscriptions.isSubscribed(partition: 5), "SUBSCRIBE sent, no SUBACK yet")
        _ = subscriptions.connectionEvent(.subscribed(filters: ["wearables/\(mine[0])/#"]))
        #expect(!subscriptions.isSubscribed(partition: 5), "one of two acknowledged")
        _ = subscriptions.connectionEvent(.subscribed(filters: ["wearables/\(mine[1])/#"]))
        #expect(subscriptions.isSubscribed(partition: 5))
        #expect(subscriptions.isSubscribed(partition: 6), "another partition with no devices")
        _ = subscriptions.connectionEvent(.disconnected(reason: "connection lost"))
        #expect(!subscriptions.isSubscribed(partition: 5) && !subscriptions.isSubscribed(partition: 6), "disconnected")
        _ = subscriptions.connectionEvent(.connected(sessionPresent: true))
        #expect(subscriptions.isSubscribed(partition: 5), "the kept session still has the subscriptions")
        _ = subscriptions.connectionEvent(.disconnected(reason: "connection lost"))
        _ = subscriptions.connectionEvent(.connected(sessionPresent: false))
        #expect(!subscriptions.isSubscribed(partition: 5), "a new session: the SUBACKs of the re-sent subscriptions are awaited")
    }

    @Test("a new device's discovery frames wait for its SUBACK and then go in order; a subscribed one's and other streams' go at once")
    func holdUntilAcknowledged() {
        let (subscriptions, connection) = make()
        let device = devices(in: 3, count: 1)[0]
        subscriptions.partitionChanged(.gained(partition: 3, epoch: 1), devices: [])
        #expect(subscriptions.hold(Self.held(device, "hello"), device: Substring(device)))
        #expect(connection.take() == ["+wearables/\(device)/# id 2"], "subscribed at its first discovery frame")
        #expect(subscriptions.hold(Self.held(device, "status"), device: Substring(device)))
        #expect(!subscriptions.hold(Self.held(device, "imu/accelerometer"), device: Substring(device)), "only discovery frames wait")
        #expect(subscriptions.connectionEvent(.subscribed(filters: ["wearables/other/#"])).isEmpty)
        let released = subscriptions.connectionEvent(.subscribed(filters: ["wearables/\(device)/#"]))
        #expect(released.map(\.frame.topic) == ["wearables/\(device)/hello", "wearables/\(device)/status"])
        #expect(!subscriptions.hold(Self.held(device, "hello"), device: Substring(device)), "acknowledged: frames flow")
        // A reconnect: frames wait for the re-sent subscriptions' SUBACKs again.
        _ = subscriptions.connectionEvent(.disconnected(reason: "test"))
        #expect(subscriptions.hold(Self.held(device, "status"), device: Substring(device)))
        #expect(subscriptions.connectionEvent(.subscribed(filters: ["wearables/\(device)/#"])).count == 1)
    }

    @Test("held frames are bounded in bytes: beyond the bound a frame goes at once; a lost partition's held frames are dropped")
    func heldBound() {
        let (subscriptions, _) = make(heldBytes: 60)
        let device = devices(in: 5, count: 1)[0]
        subscriptions.partitionChanged(.warming(partition: 5), devices: [])
        var held = 0
        while subscriptions.hold(Self.held(device, "status"), device: Substring(device)) { held += 1 }
        #expect(held >= 1 && held * Self.held(device, "status").bytes <= 60)
        subscriptions.partitionChanged(.lost(partition: 5), devices: [])
        #expect(subscriptions.connectionEvent(.subscribed(filters: ["wearables/\(device)/#"])).isEmpty, "dropped with the partition")
    }

    @Test("a frame of a partition lost after the router asked subscribes nothing, until the partition is gained again; a listed device of another partition is not subscribed")
    func lostPartitionsStayUnsubscribed() {
        let (subscriptions, connection) = make()
        let kept = devices(in: 9, count: 1)[0]
        let lost = devices(in: 10, count: 1)[0]
        subscriptions.partitionChanged(.gained(partition: 10, epoch: 1), devices: [])
        subscriptions.partitionChanged(.lost(partition: 10), devices: [])
        // The router saw the device's partition held; it was lost before the frame got here.
        #expect(!subscriptions.hold(Self.held(lost, "hello"), device: Substring(lost)), "not held: it goes on as routed")
        #expect(subscriptions.hold(Self.held(kept, "hello"), device: Substring(kept)), "a partition never lost here: subscribed")
        #expect(connection.take() == ["+wearables/\(kept)/# id 2"])
        subscriptions.partitionChanged(.gained(partition: 11, epoch: 1), devices: [kept, lost].compactMap(DeviceID.init))
        #expect(connection.take().isEmpty, "neither listed device is in partition 11")
        subscriptions.partitionChanged(.warming(partition: 10), devices: [])
        #expect(subscriptions.hold(Self.held(lost, "hello"), device: Substring(lost)), "warming again: subscribed")
        #expect(connection.take() == ["+wearables/\(lost)/# id 2"])
    }

    @Test("a connection lost and resumed with the session kept: the subscriptions acknowledged before hold again at its CONNACK and the frames held meanwhile go; without the session they wait for new SUBACKs")
    func resumedSession() {
        let (subscriptions, connection) = make()
        let mine = devices(in: 9, count: 2)
        subscriptions.partitionChanged(.gained(partition: 9, epoch: 1), devices: mine.compactMap(DeviceID.init))
        _ = connection.take()
        _ = subscriptions.connectionEvent(.subscribed(filters: mine.map { "wearables/\($0)/#" }))
        #expect(!subscriptions.hold(Self.held(mine[0], "status"), device: Substring(mine[0])), "acknowledged: frames go at once")

        _ = subscriptions.connectionEvent(.disconnected(reason: "cut"))
        #expect(subscriptions.hold(Self.held(mine[0], "status"), device: Substring(mine[0])), "after the loss a frame waits")
        let released = subscriptions.connectionEvent(.connected(sessionPresent: true))
        #expect(released.map(\.frame.topic) == ["wearables/\(mine[0])/status"], "the kept session's CONNACK lets it go")
        #expect(!subscriptions.hold(Self.held(mine[1], "status"), device: Substring(mine[1])))

        _ = subscriptions.connectionEvent(.disconnected(reason: "cut"))
        #expect(subscriptions.connectionEvent(.connected(sessionPresent: false)).isEmpty)
        #expect(subscriptions.hold(Self.held(mine[1], "status"), device: Substring(mine[1])), "no session: it waits for the SUBACK")
        #expect(subscriptions.connectionEvent(.subscribed(filters: ["wearables/\(mine[1])/#"])).count == 1)
    }
}
