import BrokerTestSupport
import Foundation
import MQTTTransport
import Ownership
import PostgresStore
import PostgresTestSupport
import TelemetryCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Lease fencing through the real parts (docs/scale-out.md, *Ownership*): two real
/// `wearable-gateway` processes in partitioned mode on one mosquitto and one PostgreSQL. The
/// device's holder is frozen (SIGSTOP) past its lease, the other instance takes the partitions
/// under greater epochs, and the frozen one is thawed: its first heartbeat reports the loss,
/// after which nothing it publishes carries its old epoch, and the store's lease shows the
/// taker's epoch. What it publishes between the thaw and that heartbeat carries its old epoch
/// (the decision: a holder past its deadline keeps publishing).
@Suite("Fencing on the PostgreSQL store", .serialized, .enabled(if: TestPostgres.url != nil, Comment(rawValue: TestPostgres.skipReason)))
struct FencingPostgresTests {
    /// A device's outputs as the observer saw them: index in the collector's list, instance, epoch.
    struct Output {
        let index: Int
        let instance: String?
        let epoch: Int64?
    }

    static func outputs(_ messages: [MQTTMessage], of device: String) -> [Output] {
        messages.enumerated().compactMap { index, message in
            guard message.topic.hasPrefix("gateway/\(device)/") else { return nil }
            let properties = Dictionary(message.properties.userProperties.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
            return Output(index: index, instance: properties["instance"], epoch: properties["epoch"].flatMap { Int64($0) })
        }
    }

    /// The index of the first metrics message of `instance` in which `name` reached `value`.
    static func firstMetric(_ messages: [MQTTMessage], _ instance: String, _ name: String, labels: [String: String] = [:], atLeast value: Double) -> Int? {
        let own = labels.merging(["gateway_instance": instance]) { given, _ in given }
        return messages.firstIndex { $0.topic == "gateway/instances/\(instance)/metrics" && PrometheusText(text: $0.payloadString).sum(name, labels: own) >= value }
    }

    @Test("a frozen holder thawed after the other instance took its partitions: its first heartbeat reports the loss, and it publishes nothing more under its old epoch")
    func frozenOwnerIsFenced() async throws {
        let settings = try await TestPostgres.makeDatabase()
        let url = "postgres://\(settings.user)@\(settings.host):\(settings.port)/\(settings.database)?sslmode=disable"
        let broker = try await TestBroker.started()
        let (observer, collector) = try await TestClients.observer(
            broker, subscribedTo: ["gateway/+/connection", "gateway/instances/+/metrics", "gateway/status"])

        let names = ["gw-a", "gw-b"]
        let device = try #require((0..<100).map { "fence-watch-\($0)" }.first { ClusterHarness.owner(of: $0, among: names) == "gw-a" })
        let owner = try GatewayProcess(broker: broker, arguments: ClusterHarness.arguments("gw-a", store: url))
        defer { owner.signal(SIGCONT) }  // never leave it stopped, whatever fails
        let other = try GatewayProcess(broker: broker, arguments: ClusterHarness.arguments("gw-b", store: url))
        try await owner.waitUntilSubscribed()
        try await other.waitUntilSubscribed()
        try await ClusterHarness.waitLive(collector, names, count: 2)

        let client = try await TestClients.connected(try TestClients.configuration(broker))
        var sent = 0
        // Each status frame changes the device's connection state, so each has an output (and changes its snapshot).
        func send() async throws {
            let state = sent % 2 == 0 ? "online" : "offline"
            sent += 1
            try await client.send(MQTTMessage(topic: "wearables/\(device)/status", string: #"{"state":"\#(state)"}"#, qos: .atLeastOnce))
        }
        /// Sends a frame at a time until `predicate` holds (each wait is the bound, not a pause).
        func sendUntil(_ what: String, rounds: Int = 60, _ predicate: @escaping @Sendable ([MQTTMessage]) -> Bool) async throws -> [MQTTMessage] {
            for _ in 0..<rounds {
                try await send()
                if let messages = try? await collector.wait(timeout: 0.5, what, until: predicate) { return messages }
            }
            return try await collector.wait(timeout: 1, what, until: predicate)
        }

        // 1. gw-a holds the device's partition: its outputs carry its instance and epoch.
        let first = try await sendUntil("an output of \(device) from gw-a") { Self.outputs($0, of: device).contains { $0.instance == "gw-a" } }
        let epochA = try #require(Self.outputs(first, of: device).first { $0.instance == "gw-a" }?.epoch)

        // 2. gw-a freezes; its leases run out and gw-b takes every partition under greater epochs.
        owner.signal(SIGSTOP)
        try await ClusterHarness.waitLive(collector, ["gw-b"], count: 1)
        let takenOver = try await sendUntil("an output of \(device) from gw-b") { Self.outputs($0, of: device).contains { $0.instance == "gw-b" } }
        let epochB = try #require(Self.outputs(takenOver, of: device).first { $0.instance == "gw-b" }?.epoch)
        #expect(epochB > epochA, "the take-over is under a greater epoch")
        try await send()  // queued for the frozen gw-a too

        // 3. gw-a thaws; its first heartbeat reports that it holds nothing any more.
        owner.signal(SIGCONT)
        let share = ClusterHarness.share(of: "gw-a", among: names)
        let learnt = try await sendUntil("gw-a to learn of the loss") {
            Self.firstMetric($0, "gw-a", "gateway_cluster_partition_changes_total", labels: ["change": "lost"], atLeast: Double(share)) != nil
        }
        // gw-a publishes its metrics on the connection it publishes outputs on, in order: an
        // output it published before learning of the loss comes before this message.
        let mark = try #require(Self.firstMetric(learnt, "gw-a", "gateway_cluster_partition_changes_total", labels: ["change": "lost"], atLeast: Double(share)))

        // 4. The device goes on: served after the mark (by gw-b, or by gw-a once the partitions
        //    are handed back to it under a new epoch), never under gw-a's old epoch.
        let later = try await sendUntil("outputs of \(device) after gw-a learnt of the loss") { messages in
            Self.outputs(messages, of: device).filter { $0.index > mark }.count >= 3
        }
        let after = Self.outputs(later, of: device).filter { $0.index > mark }
        #expect(after.allSatisfy { $0.instance != nil && $0.epoch != nil }, "every output names its instance and epoch")
        #expect(!after.contains { $0.instance == "gw-a" && $0.epoch == epochA }, "nothing under gw-a's old epoch after it learnt of the loss: \(after.map { "\($0.instance ?? "-")/\($0.epoch ?? 0)" })")
        #expect(after.filter { $0.instance == "gw-a" }.allSatisfy { ($0.epoch ?? 0) > epochB }, "gw-a publishes again only under a lease of its own")
        // The store: the device's partition is held under an epoch at least gw-b's.
        let client2 = TestPostgres.client(settings)
        let running = Task { await client2.run() }
        defer { running.cancel() }
        let lease = try #require(try await PostgresLeaseStore(client2).view().leases[OwnershipPartitions().partition(of: device)])
        #expect(lease.epoch >= epochB, "\(lease)")
        let beforeMark = Self.outputs(later, of: device).filter { $0.index < mark && $0.index > takenOver.count && $0.instance == "gw-a" }.count
        print("fencing: epochs gw-a \(epochA), gw-b \(epochB); \(sent) frames sent; gw-a published \(beforeMark) outputs under its old epoch between the thaw and its heartbeat; \(after.count) outputs after it: \(after.map { "\($0.instance ?? "-")/\($0.epoch ?? 0)" }); lease now \(lease.owner ?? "-")/\(lease.epoch)")

        await client.shutdown()
        try await ClusterHarness.stop([owner, other], collector: collector)
        await observer.shutdown()
    }
}
