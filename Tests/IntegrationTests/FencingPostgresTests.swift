import BrokerTestSupport
import Foundation
import MQTTTransport
import PostgresStore
import PostgresTestSupport
import TelemetryCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Ownership fencing through the real parts (docs/scale-out.md, *Fencing*): two real
/// `wearable-gateway` processes in partitioned mode on one mosquitto and one PostgreSQL
/// (`store.backend: postgres`). The device's owner is frozen (SIGSTOP) past `cluster.expiry`,
/// the other instance takes the device over by claiming it, and the frozen one is thawed: the
/// store refuses its next snapshot write, after which nothing it publishes for the device
/// carries its old epoch.
///
/// The frozen instance runs without its own lapse check (`WG_FAULT_SELF_EXPIRY_OFF=1`), which
/// would otherwise make it drop its backlog and its devices on its own (ClusterFaultTests): here the
/// store's epoch is the only thing that stops it. It also runs without the claim listener
/// (`WG_FAULT_CLAIM_NOTIFY_OFF=1`), whose notification of the take-over would reach it first
/// (ClaimNotifyPostgresTests): this test holds the backstop, the refused write.
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
    static func firstMetric(_ messages: [MQTTMessage], _ instance: String, _ name: String, atLeast value: Double) -> Int? {
        messages.firstIndex { $0.topic == "gateway/instances/\(instance)/metrics" && PrometheusText(text: $0.payloadString).sum(name) >= value }
    }

    @Test("a frozen owner thawed after the other instance claimed its device: its fenced write is refused and counted, and it publishes nothing more under its old epoch")
    func frozenOwnerIsFenced() async throws {
        let settings = try await TestPostgres.makeDatabase()
        let url = "postgres://\(settings.user)@\(settings.host):\(settings.port)/\(settings.database)?sslmode=disable"
        let broker = try await TestBroker.started()
        let (observer, collector) = try await TestClients.observer(
            broker, subscribedTo: ["gateway/+/connection", "gateway/instances/+", "gateway/instances/+/metrics", "gateway/status"])

        let names = ["gw-a", "gw-b"]
        let device = try #require((0..<100).map { "fence-watch-\($0)" }.first { RendezvousOwnership(instances: names).owner(of: $0) == "gw-a" })
        let owner = try GatewayProcess(
            broker: broker, arguments: ClusterHarness.arguments("gw-a", store: url), environment: ["WG_FAULT_SELF_EXPIRY_OFF": "1", "WG_FAULT_CLAIM_NOTIFY_OFF": "1"])
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

        // 1. gw-a owns the device: its outputs carry its instance and the epoch of its claim.
        let first = try await sendUntil("an output of \(device) from gw-a") { Self.outputs($0, of: device).contains { $0.instance == "gw-a" } }
        let epochA = try #require(Self.outputs(first, of: device).first { $0.instance == "gw-a" }?.epoch)

        // 2. gw-a freezes; gw-b expires it, takes the device over and claims it.
        owner.signal(SIGSTOP)
        try await ClusterHarness.waitLive(collector, ["gw-b"], count: 1)
        let takenOver = try await sendUntil("an output of \(device) from gw-b") { Self.outputs($0, of: device).contains { $0.instance == "gw-b" } }
        let epochB = try #require(Self.outputs(takenOver, of: device).first { $0.instance == "gw-b" }?.epoch)
        #expect(epochB > epochA, "the take-over is a claim under a greater epoch")
        try await send()  // queued for the frozen gw-a too: it changes the device's state there

        // 3. gw-a thaws. It still counts itself the owner (no lapse check) and processes what
        //    it receives, until its next fenced snapshot write is refused.
        owner.signal(SIGCONT)
        let refused = try await sendUntil("gw-a to count a refused write") {
            Self.firstMetric($0, "gw-a", "gateway_cluster_fenced_total", atLeast: 1) != nil
        }
        // gw-a publishes its metrics on the connection it publishes outputs on, in order: an
        // output it published before learning of the refusal comes before this message.
        let mark = try #require(Self.firstMetric(refused, "gw-a", "gateway_cluster_fenced_total", atLeast: 1))

        // 4. The device goes on: it is served after the mark (by gw-b, or by gw-a under a new
        //    claim once the instances' plans agree again), never under gw-a's old epoch.
        let served = try await sendUntil("an output of \(device) after gw-a's refusal") { messages in
            Self.outputs(messages, of: device).contains { $0.index > mark && ($0.epoch ?? 0) >= epochB }
        }
        // gw-a still receives the device's frames (it still counts itself the owner): it drops them.
        let later = try await sendUntil("gw-a to drop a frame of \(device) while fenced") { messages in
            messages.count > served.count && Self.firstMetric(messages, "gw-a", "gateway_cluster_fenced_frames_total", atLeast: 1) != nil
        }
        let after = Self.outputs(later, of: device).filter { $0.index > mark }
        #expect(!after.isEmpty)
        #expect(after.allSatisfy { $0.instance != nil && $0.epoch != nil }, "every output names its instance and epoch")
        #expect(!after.contains { $0.instance == "gw-a" && $0.epoch == epochA }, "nothing under gw-a's old epoch after its refusal: \(after.map { "\($0.instance ?? "-")/\($0.epoch ?? 0)" })")
        #expect(after.filter { $0.instance == "gw-a" }.allSatisfy { ($0.epoch ?? 0) > epochB }, "gw-a publishes again only under a claim of its own")
        let fenced = ClusterHarness.metric(later, "gw-a", "gateway_cluster_fenced_total") ?? 0
        #expect(fenced == 1, "one device fenced once: \(fenced)")
        #expect(ClusterHarness.metric(later, "gw-a", "gateway_cluster_fenced_total", labels: ["cause": "refusedWrite"]) == 1, "by the refused write")
        #expect(ClusterHarness.metric(later, "gw-b", "gateway_cluster_fenced_total") ?? 0 == 0)
        let beforeRefusal = Self.outputs(later, of: device).filter { $0.index < mark && $0.instance == "gw-a" && $0.index > first.count }.count
        print("fencing: epochs gw-a \(epochA), gw-b \(epochB); \(sent) frames sent; gw-a published \(beforeRefusal) outputs between the take-over and its refusal; \(after.count) outputs after it: \(after.map { "\($0.instance ?? "-")/\($0.epoch ?? 0)" })")

        await client.shutdown()
        try await ClusterHarness.stop([owner, other], collector: collector)
        await observer.shutdown()
    }
}
