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
/// run, join and leave, handing ownership partitions over through the store's leases; every
/// published swing is matched to the ground truth. Clustered modes
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
        // Before the stop: a graceful stop gives every partition up.
        let beforeStop = try await run.collector.wait(timeout: 10, "metrics after the last swing") { [count = run.collector.messages.count] in $0.count > count + 6 }
        try await ClusterHarness.stop(run.gateways, collector: run.collector)

        let messages = run.collector.messages
        let tally = run.fleet.tally(messages)
        #expect(tally.published == run.expected && tally.duplicates == 0 && tally.unmatched.isEmpty, "\(tally)")
        for name in run.names {
            #expect(ClusterHarness.metric(messages, name, "gateway_cluster_frames_not_owned_total") ?? 0 > 0, "\(name) dropped the others' frames")
            // Each ended with its share, took it (the first to start took all it found free, then
            // handed the others' over), and lost only what it gained beyond it or warmed up in
            // vain (a warm-up the assignment drops as instances appear counts as lost, never as
            // gained).
            let share = Double(ClusterHarness.share(of: name, among: run.names))
            let gained = ClusterHarness.metric(beforeStop, name, "gateway_cluster_partition_changes_total", labels: ["change": "gained"]) ?? 0
            let warming = ClusterHarness.metric(beforeStop, name, "gateway_cluster_partition_changes_total", labels: ["change": "warming"]) ?? 0
            let lost = ClusterHarness.metric(beforeStop, name, "gateway_cluster_partition_changes_total", labels: ["change": "lost"]) ?? 0
            let held = ClusterHarness.metric(beforeStop, name, "gateway_cluster_partitions", labels: ["state": "held"]) ?? 0
            #expect(held == share && gained >= share && gained - lost <= share && lost <= gained - share + warming, "\(name): held \(held) of \(share), gained \(gained), warming \(warming), lost \(lost)")
        }
        await run.shutdown()
    }

    @Test("a fourth instance joining mid-session warms up and takes over its share: every swing published, each exactly once")
    func fourthInstanceJoins() async throws {
        var run = try await ClusterHarness.Run.start(swings: 8)
        let (collector, fleet, names) = (run.collector, run.fleet, run.names)
        let moving = run.watches(of: "gw-d", among: names + ["gw-d"])
        #expect(moving.count >= 4, "gw-d's share")
        let (clockStart, playing) = run.play()
        try await collector.wait(timeout: 60, "40 swings") { fleet.tally($0).published >= 40 }
        let beforeJoin = collector.messages
        run.gateways.append(try GatewayProcess(broker: run.broker, arguments: ClusterHarness.arguments("gw-d", store: run.store)))
        try await collector.wait(timeout: 30, "gw-d's metrics") { messages in messages.contains { $0.topic == "gateway/instances/gw-d/metrics" } }
        let joinedAt = (ContinuousClock.now - clockStart) / .seconds(1)
        // In force once the warm-up is over (cluster.handoverWarmup, 3 s by default).
        try await ClusterHarness.waitLive(collector, names + ["gw-d"], count: 4)
        try await run.endAndWaitForAll(playing)
        // Before the stop: draining at the end hands devices between the leaving instances too.
        let beforeStop = collector.messages
        try await ClusterHarness.stop(run.gateways, collector: collector)

        let messages = collector.messages
        let tally = fleet.tally(messages)
        #expect(tally.published == run.expected && tally.unmatched.isEmpty, "\(tally)")
        // Fenced outputs (docs/scale-out.md): the old holder publishes until its next heartbeat
        // after the successor accepted, but only what the output ledger records under its lease;
        // the successor's copy of an output the old holder recorded is withheld. Exactly once.
        #expect(tally.duplicates == 0, "\(tally)")
        let afterJoin = fleet.devices.filter { moving.contains($0.id) }.map { device in device.expected.filter { device.sessionTime($0) > joinedAt + 3 }.count }.reduce(0, +)
        #expect(afterJoin > 0, "gw-d's watches swung after it took over")
        // gw-d took its share of the partitions from the others make-before-break, by offers it
        // accepted after its warm-up, and warmed up on the moving watches' frames first.
        let dShare = ClusterHarness.share(of: "gw-d", among: names + ["gw-d"])
        #expect(ClusterHarness.metric(beforeStop, "gw-d", "gateway_cluster_partition_changes_total", labels: ["change": "gained"]) == Double(dShare))
        #expect(ClusterHarness.metric(beforeStop, "gw-d", "gateway_cluster_partition_changes_total", labels: ["change": "warming"]) == Double(dShare))
        #expect(ClusterHarness.metric(messages, "gw-d", "gateway_cluster_frames_shadowed_total") ?? 0 > 0, "gw-d warmed up")
        let lostCount = { (messages: [MQTTMessage]) in
            names.compactMap { ClusterHarness.metric(messages, $0, "gateway_cluster_partition_changes_total", labels: ["change": "lost"]) }.reduce(0, +)
        }
        let lost = lostCount(beforeStop) - lostCount(beforeJoin)
        #expect(lost == Double(dShare), "the others gave up exactly gw-d's share")
        print("cluster join: \(moving.count) watches in gw-d's \(dShare) partitions (metrics at \(joinedAt) s, taken after its 3 s warm-up); \(afterJoin) of their swings after that; \(tally)")
        await run.shutdown()
    }

    @Test("SIGTERM of one instance mid-session: it drains while the others warm up, every swing published exactly once")
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
        #expect(tally.published == run.expected && tally.unmatched.isEmpty, "\(tally)")
        // The hand-over's overlap is fenced (see fourthInstanceJoins): exactly once.
        #expect(tally.duplicates == 0, "\(tally) (\(leaving.count) leaving watches)")
        // gw-b drained: its partitions went to gw-a and gw-c by hand-over (it gained none back),
        // and it let go of every one of its watches it held in memory.
        let bShare = ClusterHarness.share(of: "gw-b", among: run.names)
        let taken = ["gw-a", "gw-c"].compactMap { ClusterHarness.metric(messages, $0, "gateway_cluster_partition_changes_total", labels: ["change": "gained"]) }
        #expect(taken.reduce(0, +) >= Double(1_024), "the survivors hold every partition: \(taken)")
        let lostB = ClusterHarness.metric(messages, "gw-b", "gateway_cluster_partition_changes_total", labels: ["change": "lost"]) ?? 0
        #expect(lostB >= Double(bShare), "gw-b gave up its \(bShare) partitions: \(lostB)")
        let handedOver = ClusterHarness.metric(messages, "gw-b", "gateway_cluster_handovers_total", labels: ["direction": "lost"]) ?? 0
        #expect(handedOver == Double(leaving.count), "gw-b let go of its \(leaving.count) watches: \(handedOver)")
        print("cluster leave: \(leaving.count) watches of gw-b, SIGTERM at \(stoppedAt) s, handed over by the drain; \(tally)")
        await run.shutdown()
    }
}
