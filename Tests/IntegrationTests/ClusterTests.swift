import BrokerTestSupport
import MQTTTransport
import PostgresStore
import PostgresTestSupport
import TelemetryCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Partitioned mode through a real mosquitto with real `wearable-gateway` processes
/// (`ClusterHarness`): 30 watches play seeded swing sessions on their own clock while instances
/// run, join and leave; every published swing is matched to the ground truth. Clustered modes
/// need the shared PostgreSQL store: each test's instances share a database of their own. The
/// faults (kill, freeze) are `ClusterFaultTests`, a process of their own beside this one.
@Suite(
    "Scale-out: partitioned instances on one mosquitto", .serialized,
    .enabled(if: TestPostgres.url != nil, Comment(rawValue: TestPostgres.skipReason)))
struct ClusterTests {
    @Test("three instances, 30 watches: every ground-truth swing published exactly once across the instances")
    func threeInstancesExactlyOnce() async throws {
        let run = try await ClusterHarness.Run.start(swings: 6)
        let shares = Dictionary(uniqueKeysWithValues: run.names.map { ($0, run.watches(of: $0, among: run.names).count) })
        #expect(run.names.allSatisfy { shares[$0, default: 0] >= 5 }, "\(shares)")
        try await run.fleet.play(with: run.devices, clockStart: .now)
        try await run.endAndWaitForAll()
        try await ClusterHarness.stop(run.gateways, collector: run.collector)

        let messages = run.collector.messages
        let tally = run.fleet.tally(messages)
        #expect(tally.published == run.expected && tally.duplicates == 0 && tally.unmatched.isEmpty, "\(tally)")
        for name in run.names {
            #expect(ClusterHarness.metric(messages, name, "gateway_cluster_frames_not_owned_total") ?? 0 > 0, "\(name) dropped the others' frames")
            #expect(ClusterHarness.metric(messages, name, "gateway_cluster_handovers_total", labels: ["direction": "gained"]) == Double(shares[name, default: 0]))
        }
        await run.shutdown()
    }

    @Test("a fourth instance joining mid-session warms up and takes over its share: every swing exactly once")
    func fourthInstanceJoins() async throws {
        var run = try await ClusterHarness.Run.start(swings: 8)
        let (collector, fleet, names) = (run.collector, run.fleet, run.names)
        let moving = run.watches(of: "gw-d", among: names + ["gw-d"])
        #expect(moving.count >= 4, "gw-d's share")
        let (clockStart, playing) = run.play()
        try await collector.wait(timeout: 60, "40 swings") { fleet.tally($0).published >= 40 }
        run.gateways.append(try GatewayProcess(broker: run.broker, arguments: ClusterHarness.arguments("gw-d", store: run.store)))
        try await collector.wait(timeout: 30, "gw-d online") { messages in
            messages.contains { $0.topic == "gateway/instances/gw-d" && $0.payloadString.contains(#""state":"online""#) }
        }
        let joinedAt = (ContinuousClock.now - clockStart) / .seconds(1)
        // In force once the warm-up is over (cluster.handoverWarmup, 3 s by default).
        try await ClusterHarness.waitLive(collector, names + ["gw-d"], count: 4)
        try await run.endAndWaitForAll(playing)
        // Before the stop: draining at the end hands devices between the leaving instances too.
        let beforeStop = collector.messages
        try await ClusterHarness.stop(run.gateways, collector: collector)

        let messages = collector.messages
        let tally = fleet.tally(messages)
        #expect(tally.published == run.expected && tally.duplicates == 0 && tally.unmatched.isEmpty, "\(tally)")
        let afterJoin = fleet.devices.filter { moving.contains($0.id) }.map { device in device.expected.filter { device.sessionTime($0) > joinedAt + 3 }.count }.reduce(0, +)
        #expect(afterJoin > 0, "gw-d's watches swung after it took over")
        #expect(ClusterHarness.metric(messages, "gw-d", "gateway_cluster_handovers_total", labels: ["direction": "gained"]) == Double(moving.count))
        #expect(ClusterHarness.metric(messages, "gw-d", "gateway_cluster_frames_shadowed_total") ?? 0 > 0, "gw-d warmed up")
        let lost = names.compactMap { ClusterHarness.metric(beforeStop, $0, "gateway_cluster_handovers_total", labels: ["direction": "lost"]) }.reduce(0, +)
        #expect(lost == Double(moving.count), "the others released exactly gw-d's share")
        // The switch is gw-d's claims: the old owners let the streaming watches go at each notified claim.
        let handedOver = names.compactMap { ClusterHarness.metric(beforeStop, $0, "gateway_cluster_handed_over_total") }.reduce(0, +)
        #expect(handedOver >= 1 && handedOver <= lost, "let go at a notified claim: \(handedOver) of \(lost)")
        print("cluster join: \(moving.count) watches moved to gw-d (online at \(joinedAt) s, claimed after its 3 s warm-up), \(handedOver) let go at a notified claim; \(afterJoin) of their swings after that; \(tally)")
        await run.shutdown()
    }

    @Test("SIGTERM of one instance mid-session: it drains while the others warm up, every swing exactly once")
    func gracefulLeave() async throws {
        let run = try await ClusterHarness.Run.start(swings: 8)
        let (collector, gateways) = (run.collector, run.gateways)
        let leaving = run.watches(of: "gw-b", among: run.names)
        let (clockStart, playing) = run.play()
        try await run.waitForSwings(of: leaving, 20, "20 swings of gw-b's watches")
        gateways[1].signal(SIGTERM)
        let stoppedAt = (ContinuousClock.now - clockStart) / .seconds(1)
        #expect(try await gateways[1].waitForExit(timeout: 40) == 0, "log:\n\(gateways[1].log)")
        try await run.endAndWaitForAll(playing)
        try await ClusterHarness.stop([gateways[0], gateways[2]], collector: collector)

        let messages = collector.messages
        let tally = run.fleet.tally(messages)
        #expect(tally.published == run.expected && tally.duplicates == 0 && tally.unmatched.isEmpty, "\(tally)")
        let statuses = messages.filter { $0.topic == "gateway/instances/gw-b" }.map(\.payloadString)
        #expect(statuses.contains { $0.contains(#""state":"draining""#) } && statuses.last?.contains(#""reason":"shutdown""#) == true, "\(statuses)")
        let gained = ["gw-a", "gw-c"].compactMap { ClusterHarness.metric(messages, $0, "gateway_cluster_handovers_total", labels: ["direction": "gained"]) }.reduce(0, +)
        #expect(gained == 30, "the survivors hold every watch")
        // The switch is the next owners' claims: gw-b let its streaming watches go as each claim
        // was notified (its final metrics, published as it stopped), the rest when it left.
        let lost = ClusterHarness.metric(messages, "gw-b", "gateway_cluster_handovers_total", labels: ["direction": "lost"]) ?? 0
        let handedOver = ClusterHarness.metric(messages, "gw-b", "gateway_cluster_handed_over_total") ?? 0
        #expect(lost == Double(leaving.count) && handedOver >= 1 && handedOver <= lost, "gw-b lost \(lost), at a notified claim \(handedOver)")
        print("cluster leave: \(leaving.count) watches of gw-b, SIGTERM at \(stoppedAt) s, \(handedOver) of them let go at a notified claim; \(tally)")
        await run.shutdown()
    }

    @Test("shared mode on mosquitto: the group's subscription hands each frame to one instance")
    func sharedSubscription() async throws {
        let broker = try await TestBroker.started()
        let store = try await ClusterHarness.makeStore()
        let (observer, collector) = try await ClusterHarness.observe(broker)
        let arguments = { (name: String) in
            ["--set", "cluster.mode=shared", "--set", "cluster.sharedRouting=publisher", "--set", "cluster.group=it", "--set", "cluster.instance=\(name)", "--set", "registry.file=null",
             "--set", "metrics.publishInterval=0.2", "--set", "store.backend=postgres", "--set", "store.url=\(store)"]
        }
        let gateways = try ["gw-a", "gw-b"].map { try GatewayProcess(broker: broker, arguments: arguments($0)) }
        for gateway in gateways { try await broker.waitForSubscription(clientID: gateway.subscriberClientID, filter: "$share/it/wearables/+/#") }
        let device = try await TestClients.connected(try TestClients.configuration(broker))
        let frames = 200
        for index in 0..<frames {
            try await device.send(MQTTMessage(topic: "wearables/shared-\(index % 20)/status", string: #"{"state":"online"}"#, qos: .atLeastOnce))
        }
        #expect(await device.flush(timeout: 30))
        let received = try await collector.wait(timeout: 30, "both instances to count \(frames) frames together") { messages in
            ["gw-a", "gw-b"].compactMap { ClusterHarness.metric(messages, $0, "gateway_frames_processed_total") }.reduce(0, +) >= Double(frames)
        }
        let counts = ["gw-a", "gw-b"].map { ClusterHarness.metric(received, $0, "gateway_frames_processed_total") ?? 0 }
        #expect(counts.allSatisfy { $0 > 0 } && counts.reduce(0, +) == Double(frames), "\(counts)")
        try await ClusterHarness.stop(gateways, collector: collector)
        await device.shutdown()
        await observer.shutdown()
    }
}
