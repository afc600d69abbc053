import BrokerTestSupport
import Foundation
import MQTTTransport
import PostgresTestSupport
import TelemetryCore
import TelemetrySimulation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Derived state that spans more than the warm-up, across owners: a diver is mid-dive while its
/// owner drains (SIGTERM), a fourth instance joins and takes the diver, and that one is killed
/// (SIGKILL). Real `wearable-gateway` processes in partitioned mode on one mosquitto and one
/// PostgreSQL database; the owners hand the dive over through the shared store: a partition's
/// next holder restores the snapshot its previous holder wrote last (docs/scale-out.md, *Ownership*).
@Suite(
    "Scale-out: device state handed over between instances", .serialized,
    .enabled(if: TestPostgres.url != nil, Comment(rawValue: TestPostgres.skipReason)))
struct ClusterStateHandoverTests {
    static let start = 1_700_000_000.0
    /// Frames per second the diver sends: its 6 frames per second of dive time, sped up 15×.
    static let rate = 90.0

    /// Publishes `frames` at ``rate`` (the device's pace, not a synchronisation), each
    /// acknowledged by the broker.
    static func publish(_ frames: ArraySlice<SimulatedFrame>, with client: MQTTClient) async throws {
        let clock = ContinuousClock()
        let begin = clock.now
        for (count, frame) in frames.enumerated() {
            try await client.publish(MQTTMessage(topic: frame.topic(), payload: frame.payload, qos: .atLeastOnce, retain: frame.retain))
            let due = begin + .seconds(Double(count + 1) / rate)
            if due > clock.now { try await Task.sleep(until: due, clock: clock) }
        }
    }

    @Test("a dive whose owner drains, is replaced by a joining instance, which is killed: one dive summary with the real start and maximum depth")
    func diveAcrossOwners() async throws {
        let broker = try await TestBroker.started()
        let store = try await ClusterHarness.makeStore()
        let scenario = DiveScenario.deepDive()
        let device = scenario.deviceId
        let frames = scenario.frames(startDate: Self.start)
        let (observer, collector) = try await TestClients.observer(
            broker, subscribedTo: ["gateway/\(device)/submersion/#", "gateway/\(device)/availability", "gateway/instances/+/metrics", "gateway/status"])

        let names = ["gw-a", "gw-b", "gw-c"]
        var gateways = try names.map { try GatewayProcess(broker: broker, arguments: ClusterHarness.arguments($0, store: store)) }
        for gateway in gateways { try await gateway.waitUntilSubscribed() }
        try await ClusterHarness.waitLive(collector, names, count: 3)
        let first = try #require(ClusterHarness.owner(of: device, among: names))
        let survivors = names.filter { $0 != first }
        let second = try #require(ClusterHarness.owner(of: device, among: survivors))
        // A joining instance that takes the diver from the second owner.
        let joiner = try #require((UnicodeScalar("d").value...UnicodeScalar("z").value).map { "gw-\(Character(UnicodeScalar($0)!))" }.first {
            ClusterHarness.owner(of: device, among: survivors + [$0]) == $0
        })
        let diver = try await TestClients.connected(try TestClients.configuration(broker))

        // 0. The diver says hello and waits for its availability: its owner publishes it once
        //    the broker acknowledged the owner's subscription to the diver's streams.
        let hello = try #require(frames.firstIndex { $0.topic().hasSuffix("/hello") })
        try await Self.publish(frames[...hello], with: diver)
        try await collector.wait(timeout: 30, "the diver's availability") { $0.contains { $0.topic == "gateway/\(device)/availability" } }

        // 1. Twenty seconds into the dive at the first owner.
        let intoDive = try #require(frames.firstIndex { $0.time > scenario.submergeTime + 20 })
        try await Self.publish(frames[(hello + 1)..<intoDive], with: diver)
        try await collector.wait(timeout: 30, "the dive under way") { messages in
            messages.contains { $0.topic.hasSuffix("/submersion/depth-state") && $0.payloadString.contains("\"submerged") }
        }

        // 2. The first owner drains (SIGTERM) while the diver goes on; the second shadows, then owns.
        let drained = intoDive + Int(6 * Self.rate)
        gateways[names.firstIndex(of: first)!].signal(SIGTERM)
        try await Self.publish(frames[intoDive..<drained], with: diver)
        #expect(try await gateways[names.firstIndex(of: first)!].waitForExit(timeout: 40) == 0)
        gateways.remove(at: names.firstIndex(of: first)!)

        // 3. A fourth instance joins and takes the diver over after its warm-up; the diver goes
        //    on until the joiner has published the diver's state as its owner.
        gateways.append(try GatewayProcess(broker: broker, arguments: ClusterHarness.arguments(joiner, store: store)))
        // The diver pauses while the joiner starts (its frames carry their own times), so a slow
        // process start on a loaded machine does not use up the dive.
        try await gateways.last!.waitUntilSubscribed()
        try await ClusterHarness.waitLive(collector, survivors + [joiner], count: 3)
        var next = drained
        let joinLimit = frames.count * 3 / 4
        @Sendable func tookOver(_ messages: [MQTTMessage]) -> Bool {
            let released = ClusterHarness.metric(messages, second, "gateway_cluster_handovers_total", labels: ["direction": "lost"]) ?? 0 >= 1
            // The joiner wrote the diver's snapshot to the store under its partition's lease (the
            // diver is its only device): that is what the next owner continues from after the kill.
            let written = ClusterHarness.metric(messages, joiner, "gateway_device_snapshots_written_total") ?? 0 >= 1
            return released && written
        }
        while !tookOver(collector.messages) {
            guard next < joinLimit else {
                let clusterMetrics = [second, joiner].map { name in
                    "\(name): " + (collector.messages.last { $0.topic == "gateway/instances/\(name)/metrics" }?.payloadString.split(separator: "\n").filter { $0.hasPrefix("gateway_cluster") || $0.hasPrefix("gateway_device_state") }.joined(separator: "\n") ?? "no metrics")
                }
                print("cluster dive metrics:\n\(clusterMetrics.joined(separator: "\n"))")
                throw TestFailure("\(joiner) did not take the diver over within three quarters of the dive; its log:\n\(gateways.last!.log.suffix(4_000))\n\(second)'s log:\n\(gateways.first { $0.instance == second }?.log.suffix(4_000) ?? "")")
            }
            try await Self.publish(frames[next..<next + 30], with: diver)
            next += 30
        }
        let joinedAt = next

        // 4. The joiner dies (SIGKILL) mid-dive; the second owner takes the diver back once the
        //    joiner's leases ran out. The diver pauses until then: what a device sends between a
        //    death and its successor's subscription reaches only the dead instance's session
        //    (docs/scale-out.md, Ownership: not done yet), and this test is about the state.
        gateways.last!.signal(SIGKILL)
        _ = try await gateways.last!.waitForExit(timeout: 10)
        gateways.removeLast()
        try await ClusterHarness.waitLive(collector, survivors, count: 2)
        #expect(!collector.messages.contains { $0.topic.hasSuffix("/submersion/dive") }, "the dive ended before the last hand-over; the test proved nothing")
        #expect(frames[next].time < scenario.surfaceTime, "the last hand-over happened under water")
        try await Self.publish(frames[next...], with: diver)
        try await collector.wait(timeout: 60, "the dive summary") { messages in messages.contains { $0.topic.hasSuffix("/submersion/dive") } }
        try await ClusterHarness.stop(gateways, collector: collector)

        let messages = collector.messages
        let dives = messages.filter { $0.topic == "gateway/\(device)/submersion/dive" }
        #expect(dives.count == 1, "exactly one dive summary across the instances: \(dives.map(\.payloadString))")
        let dive = try #require(dives.first)
        let object = (try? JSONSerialization.jsonObject(with: Data(dive.payload)) as? [String: Any]) ?? [:]
        let startDate = try #require((object["startDate"] as? NSNumber)?.doubleValue)
        let maxDepth = try #require((object["maxDepth"] as? NSNumber)?.doubleValue)
        #expect(abs(startDate - (Self.start + scenario.submergeTime)) < 0.001, "the dive began at the first owner")
        #expect(abs(maxDepth - scenario.reportedMaxDepth()) < 1e-6, "\(maxDepth) m, expected \(scenario.reportedMaxDepth()) m")
        let events = messages.filter { $0.topic.hasPrefix("gateway/\(device)/submersion/") }
        let identified = events.compactMap { event in
            ((try? JSONSerialization.jsonObject(with: Data(event.payload)) as? [String: Any])?["eventId"] as? String).map { ($0, event) }
        }
        // Two graceful switches (the drain, the join): the old holder publishes until its next
        // heartbeat reports the accept, and a temperature event is derived from every
        // temperature frame (≈ 1,900 here, 45 per second of the test's clock), so an overlap of
        // a few tenths of a second derived a dozen on both holders. The output ledger lets one
        // copy of each out (docs/scale-out.md, *Fenced outputs*): no event twice; the failure
        // message gives each copy's instance, epoch and stand-in.
        // Frame times are seconds from the scenario's start; event dates are Unix times.
        let killedAt = Self.start + frames[joinedAt].time
        let repeated = Dictionary(grouping: identified) { $0.0 }.values.filter { $0.count > 1 }
        let shown = repeated.map { copies in
            copies.map { copy in
                let stamp = copy.1.properties.userProperties.filter { ["instance", "epoch", "stand-in"].contains($0.name) }.map { "\($0.name)=\($0.value)" }
                return "\(copy.1.topic) \(stamp) \(copy.1.payloadString)"
            }
        }
        // The joiner's stand-in (after the kill) does not announce its devices' retained state
        // again: the broker kept it with the session the stand-in resumed.
        #expect(repeated.isEmpty, "a submersion event twice; the joiner was killed after frame \(joinedAt) (t = \(killedAt - Self.start) s); repeated: \(shown)")
        // The second owner restored the joiner's snapshot from the store after the kill.
        let restored = ClusterHarness.metric(messages, second, "gateway_devices_restored_total") ?? 0
        #expect(restored >= 1, "\(second) restored the diver's snapshot from the store after the kill: \(restored)")
        let submerged = frames[intoDive].time - scenario.submergeTime
        print(
            "cluster dive: \(repeated.count) submersion events repeated; \(first) drained at \(Int(submerged)) s of dive time, \(second) took over; \(joiner) joined and owned it until frame \(joinedAt) (\(Int(frames[joinedAt].time - scenario.submergeTime)) s), killed; \(second) finished: \(dives.count) summary, start \(startDate - Self.start) s, max depth \(maxDepth) m; snapshots restored by \(second) (last published metrics): \(restored)"
        )
        await diver.shutdown()
        await observer.shutdown()
    }

    @Test("a join moves about half the divers, they go deeper, the broker restarts without persistence: every retained topic of every diver is back, the newest, from its owner")
    func retainedAfterMoveAndBrokerRestart() async throws {
        let broker = try await TestBroker.started()
        let store = try await ClusterHarness.makeStore()
        let divers = (0..<24).map { "diver-\($0)" }
        let retainedLeaves = ["availability", "connection", "submersion/depth-state"]
        let (observer, collector) = try await TestClients.observer(
            broker, subscribedTo: retainedLeaves.map { "gateway/+/\($0)" } + ["gateway/instances/+/metrics"])
        var gateways = try await ClusterHarness.start(["gw-a"], on: broker, store: store)
        try await ClusterHarness.waitLive(collector, ["gw-a"], count: 1)
        let client = try await TestClients.connected(try TestClients.configuration(broker))
        func send(_ diver: String, _ stream: String, _ json: String, retain: Bool = false) async throws {
            try await client.publish(MQTTMessage(topic: "wearables/\(diver)/\(stream)", string: json, qos: .atLeastOnce, retain: retain))
        }
        @Sendable func latest(_ messages: [MQTTMessage], _ diver: String, _ leaf: String) -> MQTTMessage? {
            messages.last { $0.topic == "gateway/\(diver)/\(leaf)" }
        }
        @Sendable func allDeeper(_ state: String) -> @Sendable ([MQTTMessage]) -> Bool {
            { messages in divers.allSatisfy { latest(messages, $0, "submersion/depth-state")?.payloadString.contains(#""state":"\#(state)""#) == true } }
        }

        // 1. gw-a alone: every diver says hello (retained) and online; once subscribed (its
        //    availability), it dives to 5 m (submergedDeep).
        for diver in divers {
            let hello = String(decoding: FrameEncoder.encode(SimulatedDevice.appleWatchUltra2(id: diver).descriptor), as: UTF8.self)
            try await send(diver, "hello", hello, retain: true)
            try await send(diver, "status", #"{"state":"online"}"#)
        }
        try await collector.wait(timeout: 30, "every diver's availability and connection") { messages in
            divers.allSatisfy { latest(messages, $0, "availability") != nil && latest(messages, $0, "connection") != nil }
        }
        for diver in divers {
            try await send(diver, "submersion/event", #"{"date":\#(Self.start + 1),"state":"submerged"}"#)
            try await send(diver, "submersion/measurement", #"{"date":\#(Self.start + 2),"depth":5.0,"surfacePressure":101.3,"submersionState":"submergedDeep"}"#)
        }
        try await collector.wait(timeout: 30, "every diver submergedDeep", until: allDeeper("submergedDeep"))

        // 2. gw-b joins and takes its share after the warm-up (about half the divers).
        let names = ["gw-a", "gw-b"]
        gateways += try await ClusterHarness.start(["gw-b"], on: broker, store: store)
        try await ClusterHarness.waitLive(collector, names, count: 2)
        let moved = ClusterHarness.devices(divers, of: "gw-b", among: names)
        #expect(!moved.isEmpty && moved.count < divers.count, "the join moved some divers, not all: \(moved.count)")

        // 3. Every diver goes deeper, past 0.9 × 40 m (approachingMaxDepth), at its owner now.
        for diver in divers {
            try await send(diver, "submersion/measurement", #"{"date":\#(Self.start + 3),"depth":37.0,"surfacePressure":101.3,"submersionState":"approachingMaxDepth"}"#)
        }
        try await collector.wait(timeout: 30, "every diver approachingMaxDepth", until: allDeeper("approachingMaxDepth"))

        // 4. The broker restarts without persistence: its retained messages are gone. Each
        //    instance announces again what it holds, and only that.
        try await broker.restarted()
        let (watcher, announced) = try await TestClients.observer(
            broker, subscribedTo: retainedLeaves.map { "gateway/+/\($0)" } + ["gateway/instances/+/metrics", "gateway/status"])
        let shares = Dictionary(uniqueKeysWithValues: names.map { name in (name, ClusterHarness.devices(divers, of: name, among: names).count) })
        try await announced.wait(timeout: 30, "each instance's re-announcement of its divers' \(retainedLeaves.count) retained topics") { messages in
            names.allSatisfy { name in
                (ClusterHarness.metric(messages, name, "gateway_retained_reannounced_total") ?? 0) >= Double(retainedLeaves.count * shares[name]!)
            }
        }
        // Nothing re-announced about a diver came from an instance that does not hold it.
        for message in announced.messages where retainedLeaves.contains(where: { message.topic.hasSuffix("/\($0)") }) {
            let diver = message.topic.split(separator: "/")[1]
            let instance = message.properties.userProperties.first { $0.name == "instance" }?.value
            #expect(instance == ClusterHarness.owner(of: String(diver), among: names), "\(message.topic) announced by \(instance ?? "nobody")")
        }

        // 5. A dashboard subscribing now reads every retained topic of every diver, the newest.
        let (dashboard, retained) = try await TestClients.observer(broker, subscribedTo: retainedLeaves.map { "gateway/+/\($0)" })
        do {
            try await retained.wait(timeout: 10, "every retained topic of every diver") { messages in
                divers.allSatisfy { diver in retainedLeaves.allSatisfy { latest(messages, diver, $0) != nil } }
            }
        } catch {
            let missing = divers.flatMap { diver in retainedLeaves.filter { latest(retained.messages, diver, $0) == nil }.map { "\(diver)/\($0)\(moved.contains(diver) ? " (moved)" : "")" } }
            throw TestFailure("\(error); missing: \(missing)")
        }
        // A late reader can rank what it read: each retained message carries its publisher's
        // instance and epoch (MQTT 5 user properties, which the broker keeps with the message).
        for diver in divers {
            for leaf in retainedLeaves {
                guard let message = latest(retained.messages, diver, leaf) else { continue }
                let stamp = Dictionary(message.properties.userProperties.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
                #expect(stamp["instance"] == ClusterHarness.owner(of: diver, among: names), "\(message.topic) retained from \(stamp)")
                #expect(stamp["epoch"].flatMap { Int64($0) }.map { $0 > 0 } == true, "\(message.topic) retained without an epoch: \(stamp)")
            }
        }
        let stale = divers.filter { latest(retained.messages, $0, "submersion/depth-state")?.payloadString.contains(#""state":"approachingMaxDepth""#) != true }
        #expect(stale.isEmpty, "the retained depth state of \(stale) is not the newest (moved: \(stale.filter(moved.contains)))")
        let offline = divers.filter { latest(retained.messages, $0, "connection")?.payloadString.contains(#""state":"connected""#) != true }
        #expect(offline.isEmpty, "the retained connection of \(offline) is not connected")
        print("cluster retained: \(moved.count) of \(divers.count) divers moved to gw-b; after the broker restart \(retained.messages.count) retained messages, \(stale.count) stale")

        try await ClusterHarness.stop(gateways, collector: announced)
        for connection in [client, observer, watcher, dashboard] { await connection.shutdown() }
        _ = collector
    }
}
