import Foundation
import BrokerTestSupport
import MQTTTransport
import PostgresStore
import PostgresTestSupport
import TelemetryCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Partitioned mode under faults, through a real mosquitto with real `wearable-gateway`
/// processes (`ClusterHarness`): an instance killed with SIGKILL or frozen with SIGSTOP past the
/// lease time while 30 watches play seeded swing sessions; every published swing is matched to the
/// ground truth, and a swing lost is allowed only in the documented window of the fault. The
/// store's outages are in ClusterFaultTests+StoreOutages.swift.
@Suite(
    "Scale-out: partitioned instances killed and frozen", .serialized,
    .enabled(if: TestPostgres.url != nil, Comment(rawValue: TestPostgres.skipReason)))
struct ClusterFaultTests {
    @Test("SIGKILL of an owner right after its watches started their workouts, long before a snapshot tick: the successors have the sessions from the store, every swing once")
    func killAfterContextFrames() async throws {
        // Snapshot ticks an hour apart: only the writes a context frame makes at once (hello,
        // workout) put the watches' access state and workout sessions into the store.
        let run = try await ClusterHarness.Run.start(swings: 6, extra: ["--set", "state.snapshotInterval=3600"])
        let (collector, fleet, gateways) = (run.collector, run.fleet, run.gateways)
        let victims = run.watches(of: "gw-b", among: run.names)
        try await collector.wait(timeout: 30, "gw-b's hello and workout writes") { messages in
            ClusterHarness.metric(messages, "gw-b", "gateway_cluster_context_writes_total") ?? 0 >= Double(2 * victims.count)
        }
        gateways[1].signal(SIGKILL)
        _ = try await gateways[1].waitForExit(timeout: 10)
        let survivors = ["gw-a", "gw-c"]
        // The survivors hold every watch's subscription before the watches stream (what a device
        // sends before its owner's SUBACK reaches nobody: docs/scale-out.md), and every partition:
        // gw-b's stand-in has handed its partitions over (a swing across a hand-over may be
        // published twice, which is the join and leave tests' concern, not this one's).
        try await ClusterHarness.waitSubscribed(collector, survivors, count: 30)
        try await ClusterHarness.waitLive(collector, survivors, count: 2)
        let (_, playing) = run.play()
        try await run.endAndWaitForAll(playing)
        try await ClusterHarness.stop([gateways[0], gateways[2]], collector: collector)

        let messages = collector.messages
        let tally = fleet.tally(messages)
        #expect(tally.published == run.expected && tally.duplicates == 0 && tally.unmatched.isEmpty, "\(tally)")
        let restored = survivors.map { ClusterHarness.metric(messages, $0, "gateway_devices_restored_total") ?? 0 }.reduce(0, +)
        #expect(restored >= Double(victims.count), "the successors restored gw-b's \(victims.count) watches from the store: \(restored)")
        print("cluster context: \(victims.count) watches of gw-b, killed after their hello and workout were written (snapshot ticks 3600 s apart); restored by the survivors \(restored); \(tally)")
        await run.shutdown()
    }

    @Test("SIGKILL of one instance mid-session: its watches' swings come from the others within 10 s, each once")
    func killOneInstance() async throws {
        let run = try await ClusterHarness.Run.start(swings: 8)
        let (collector, fleet, gateways) = (run.collector, run.fleet, run.gateways)
        let victims = run.watches(of: "gw-b", among: run.names)
        let (clockStart, playing) = run.play()
        // Kill gw-b mid-session, once it has published 20 swings of its watches (an observed event).
        try await run.waitForSwings(of: victims, 20, "20 swings of gw-b's watches")
        gateways[1].signal(SIGKILL)
        let killedAt = (ContinuousClock.now - clockStart) / .seconds(1)
        // The first swing of gw-b's watches that started after the kill, published by the others.
        let takeover = ContinuousClock.now
        try await collector.wait(timeout: 10, "a swing of gw-b's watches that started after the kill") { messages in
            let tally = fleet.tally(messages)
            return fleet.devices.contains { device in
                victims.contains(device.id) && device.expected.indices.contains { device.sessionTime(device.expected[$0]) > killedAt && tally.count(device.id, $0) > 0 }
            }
        }
        let takeoverSeconds = (ContinuousClock.now - takeover) / .seconds(1)
        let survivors = [gateways[0], gateways[2]]
        // The window: gw-b's leases run out 3 s (cluster.leaseTime) after its last heartbeat, the
        // survivors take its partitions at their next heartbeat (0.5 s) and subscribe its
        // watches; what the watches sent until the broker acknowledged those subscriptions
        // reached only gw-b's session (docs/scale-out.md, Not done yet). Its end is observed,
        // not assumed: the survivors' metrics (every 0.2 s) showing every watch subscribed, none
        // pending. Beside four other multi-instance suites on two cores it came later than
        // kill + 5 s once (CI, 2026-11-27), so the take-over's time has a bound of its own.
        try await ClusterHarness.waitSubscribed(collector, ["gw-a", "gw-c"], count: 30)
        let subscribedAt = (ContinuousClock.now - clockStart) / .seconds(1)
        #expect(subscribedAt - killedAt <= 10, "the survivors subscribed gw-b's watches \(subscribedAt - killedAt) s after the kill")
        // What gw-b had acknowledged and not yet made durable lives only on its disk (its journal
        // and memory): a swing of its watches already begun at the kill may be lost. Every frame
        // it had not acknowledged is still in its broker session, which the adopter's stand-in
        // resumes and processes: every swing begun after the kill is published (0.5 s of slack
        // for the simulator's send times against the test's clock).
        let window = (killedAt - 3)...(killedAt + 0.5)
        let atRisk = try await run.endAndWaitForAll(but: victims, startingIn: window, playing)
        try await ClusterHarness.stop(survivors, collector: collector)

        let adoptions = ["gw-a", "gw-c"].map { ClusterHarness.metric(collector.messages, $0, "gateway_cluster_adoptions_total") ?? 0 }.reduce(0, +)
        #expect(adoptions == 1, "gw-b adopted once by a survivor")
        // The stand-in hands over make-before-break, as a leaving instance does; the overlap's
        // outputs are fenced by the output ledger: exactly once (ClusterTests, leave).
        let (tally, lostInWindow) = run.expectOnceInOrder(victims: victims, atRisk: atRisk, "kill at \(killedAt) s")
        let standIn = ["gateway_messages_received_total", "gateway_frames_processed_total", "gateway_cluster_frames_not_owned_total", "gateway_cluster_frames_shadowed_total", "gateway_frames_left_in_journal_total"].map { "\($0)=\(ClusterHarness.standInMetric(collector.messages, of: "gw-b", adopters: survivors.compactMap(\.instance), $0))" }
        print("cluster kill: gw-b's last metrics (its stand-in's): \(standIn)")
        for gateway in survivors { print("cluster kill: \(gateway.instance ?? "?") log:\n" + gateway.log.split(separator: "\n").filter { $0.contains("adopt") || $0.contains("stand-in") || $0.contains("standInOf") && ($0.contains("warning") || $0.contains("error") || $0.contains("notice")) }.prefix(40).joined(separator: "\n")) }
        // The losses split: swings the killed run recorded in the output ledger and died before
        // publishing, and the rest (in progress at the kill: their samples were in its windows).
        let unpublished = try await Self.recordedButNotPublished(store: run.store, collector.messages).values.reduce(0, +)
        print("cluster kill: \(victims.count) watches of gw-b; killed at \(killedAt) s; first post-kill swing after \(takeoverSeconds) s; all subscribed again at \(subscribedAt) s; \(lostInWindow) swings lost in the window \(window) (recorded and never published: \(unpublished)); \(tally)")
        await run.shutdown()
    }

    @Test("SIGKILL of one instance and its restart 2 s later on its own disk and broker session: its partitions come back to it, every swing once, none lost outside the kill's window")
    func killAndRestartOnDisk() async throws {
        var run = try await ClusterHarness.Run.start(swings: 8)
        let collector = run.collector
        let victims = run.watches(of: "gw-b", among: run.names)
        let (clockStart, playing) = run.play()
        try await run.waitForSwings(of: victims, 20, "20 swings of gw-b's watches")
        let killed = run.gateways[1]
        killed.signal(SIGKILL)
        let killedAt = (ContinuousClock.now - clockStart) / .seconds(1)
        _ = try await killed.waitForExit(timeout: 10)
        // The fault: a supervisor starting it again 2 s later, with its journal, its device state
        // and its client id (so its broker session with the frames it had not acknowledged).
        try await Task.sleep(for: .seconds(2))
        let restarted = try GatewayProcess(
            broker: run.broker, arguments: ClusterHarness.arguments("gw-b", store: run.store) + ["--set", "mqtt.clientId=\(killed.clientID)"],
            dataDirectory: killed.dataDirectory)
        run.gateways[1] = restarted
        let restartedAt = (ContinuousClock.now - clockStart) / .seconds(1)
        // Its share comes back to it: taken back from its earlier run at once, or handed back by
        // a survivor's stand-in when the earlier run's row had run out and was adopted first.
        try await run.waitForOwnership(timeout: 40, "gw-b holding its share again") { messages in
            ClusterHarness.metric(messages, "gw-b", "gateway_cluster_partitions", labels: ["state": "held"])
                == Double(ClusterHarness.share(of: "gw-b", among: ["gw-a", "gw-b", "gw-c"]))
        }
        // What the killed run had derived but not yet stored (a swing in progress) may be lost;
        // every swing begun outside the kill's window is published (0.5 s of slack for the
        // simulator's send times against the test's clock).
        let window = (killedAt - 3)...(restartedAt + 0.5)
        let atRisk = try await run.endAndWaitForAll(but: victims, startingIn: window, playing)
        try await ClusterHarness.stop(run.gateways, collector: collector)

        let (tally, lostInWindow) = run.expectOnceInOrder(victims: victims, atRisk: atRisk, "kill at \(killedAt) s, restart at \(restartedAt) s")
        let adoptions = ["gw-a", "gw-c"].map { ClusterHarness.metric(collector.messages, $0, "gateway_cluster_adoptions_total") ?? 0 }.reduce(0, +)
        let replayed = ClusterHarness.metric(collector.messages, "gw-b", "gateway_journal_replayed_total") ?? 0
        // Taken back before anyone adopted the earlier run, the restart replays its journal: the
        // batched frames of the last `derivation.swing.alignmentWindow` are kept there, so their
        // samples refill the swing windows and the swing in progress at the kill is published.
        // What remains is a swing the killed run recorded in the output ledger and died before
        // publishing (docs/scale-out.md, Not done yet: recorded but never published; the kill
        // comes right after observed swings, so within a burst of publishes): the restart's copy
        // is a duplicate there. Adopted first, the earlier run's stand-in served its devices
        // from an older snapshot, without the windows.
        let unpublished = try await Self.recordedButNotPublished(store: run.store, collector.messages)
        let unexplained = run.lostByDevice(tally, atRisk: atRisk).map { device, lost in max(0, lost - (unpublished[device] ?? 0)) }.reduce(0, +)
        if adoptions == 0 {
            #expect(replayed > 0, "the restart replayed its journal")
            #expect(unexplained == 0, "taken back at once, \(unexplained) swings of the kill's window lost that the killed run had not recorded; \(tally)")
        }
        print("cluster kill and restart on disk: \(victims.count) watches of gw-b; killed at \(killedAt) s, restarted at \(restartedAt) s; adoptions \(adoptions); journal records replayed \(replayed); \(lostInWindow) swings lost in the window \(window), \(unexplained) of them not recorded by the killed run (recorded and never published: \(unpublished.values.reduce(0, +))); \(tally)")
        await run.shutdown()
    }

    /// Per device, the outputs on `gateway/{id}{suffix}` (swings by default) the output ledger
    /// recorded and nobody published (no message with their event id reached the observer).
    static func recordedButNotPublished(store: String, _ messages: [MQTTMessage], suffix: String = "/swing") async throws -> [String: Int] {
        guard case .success(let settings) = PostgresStoreSettings.parse(store) else { throw TestPostgresError("store URL \(store)") }
        let session = try await TestStoreSession.connect(settings)
        let recorded: [(topic: String, eventID: String)]
        do {
            recorded = try await session.recordedOutputs(endingIn: suffix)
        } catch {
            await session.close()
            throw error
        }
        await session.close()
        let published = Set(
            messages.filter { $0.topic.hasSuffix(suffix) }.compactMap { message in
                ((try? JSONSerialization.jsonObject(with: Data(message.payload))) as? [String: Any])?["eventId"] as? String
            })
        var unpublished: [String: Int] = [:]
        for key in recorded where !published.contains(key.eventID) {
            unpublished[String(key.topic.dropFirst("gateway/".count).dropLast(suffix.count)), default: 0] += 1
        }
        return unpublished
    }

    @Test("SIGKILL of two of three instances at once: the survivor adopts both and runs their stand-ins side by side; every swing begun after the kill is published once")
    func killTwoInstances() async throws {
        let run = try await ClusterHarness.Run.start(swings: 8)
        let (collector, gateways) = (run.collector, run.gateways)
        let victims = run.watches(of: "gw-b", among: run.names).union(run.watches(of: "gw-c", among: run.names))
        let (clockStart, playing) = run.play()
        try await run.waitForSwings(of: victims, 20, "20 swings of gw-b's and gw-c's watches")
        gateways[1].signal(SIGKILL)
        gateways[2].signal(SIGKILL)
        let killedAt = (ContinuousClock.now - clockStart) / .seconds(1)
        // Both rows expire within a heartbeat of each other; gw-a adopts one per heartbeat, both
        // within the adoption window (two heartbeats), and runs both stand-ins at once: one at a
        // time, the second would have waited past its window and its session's frames been lost.
        try await ClusterHarness.waitSubscribed(collector, ["gw-a"], count: 30)
        let window = (killedAt - 3)...(killedAt + 0.5)
        let atRisk = try await run.endAndWaitForAll(but: victims, startingIn: window, playing)
        try await ClusterHarness.stop([gateways[0]], collector: collector)

        let adoptions = ClusterHarness.metric(collector.messages, "gw-a", "gateway_cluster_adoptions_total") ?? 0
        #expect(adoptions == 2, "gw-a adopted both")
        let (tally, lostInWindow) = run.expectOnceInOrder(victims: victims, atRisk: atRisk, "kill at \(killedAt) s")
        let unpublished = try await Self.recordedButNotPublished(store: run.store, collector.messages).values.reduce(0, +)
        print("cluster double kill: \(victims.count) watches of gw-b and gw-c; killed at \(killedAt) s; adoptions \(adoptions); \(lostInWindow) swings lost in the window \(window) (recorded and never published: \(unpublished)); \(tally)")
        await run.shutdown()
    }

    // The cut can fall right after gw-d began warming up, before its listing of the partitions'
    // devices ran. When a warm-up was only a time, gw-d accepted the partitions without having
    // subscribed their devices, and the moved watches' frames reached nobody once their old
    // holder let go (28 of 300 swings lost in 1 run of 5). Now the listing is tried again until
    // the store answers, and only a listed and subscribed warm-up is accepted.
    @Test("SIGSTOP of one instance past its lease, then SIGCONT: the others took its partitions; its backlog is fenced (nothing published twice), then it joins again")
    func freezeAndThaw() async throws {
        // Thawed, gw-b processes what it had read as the owner it was until its first heartbeat
        // reports the loss; the output ledger refuses those outputs (docs/scale-out.md, Fenced
        // outputs), and the frames it never acknowledged went to its stand-in.
        let run = try await ClusterHarness.Run.start(swings: 12)
        let (collector, fleet, gateways) = (run.collector, run.fleet, run.gateways)
        defer { gateways[1].signal(SIGCONT) }  // never leave it stopped, whatever fails
        let victims = run.watches(of: "gw-b", among: run.names)
        let (clockStart, playing) = run.play()
        try await run.waitForSwings(of: victims, 15, "15 swings of gw-b's watches")
        gateways[1].signal(SIGSTOP)
        let stoppedAt = (ContinuousClock.now - clockStart) / .seconds(1)
        // Frozen until the others took its partitions (its leases ran out, cluster.leaseTime 3 s)
        // and published a swing of its watches that started after the freeze.
        try await ClusterHarness.waitLive(collector, ["gw-a", "gw-c"], count: 2)
        try await collector.wait(timeout: 15, "a swing of gw-b's watches that started after the freeze, from the others") { messages in
            let tally = fleet.tally(messages)
            return fleet.devices.contains { device in
                victims.contains(device.id) && device.expected.indices.contains { device.sessionTime(device.expected[$0]) > stoppedAt && tally.count(device.id, $0) > 0 }
            }
        }
        gateways[1].signal(SIGCONT)
        let thawedAt = (ContinuousClock.now - clockStart) / .seconds(1)
        try await ClusterHarness.waitLive(collector, run.names, count: 3)
        // Swings of gw-b's watches starting while nobody else processed them (from the freeze
        // until the others took its partitions) may be lost: gw-b's backlog after the thaw is
        // fenced by the output ledger (docs/scale-out.md, *Fenced outputs*), so never twice.
        let window = (stoppedAt - 3)...(stoppedAt + 7)
        let atRisk = try await run.endAndWaitForAll(but: victims, startingIn: window, playing)
        try await ClusterHarness.stop(gateways, collector: collector)

        let messages = collector.messages
        let tally = fleet.tally(messages)
        var lostInWindow = 0
        var twiceInWindow = 0
        var afterThaw = 0
        for device in fleet.devices {
            for index in device.expected.indices {
                let start = device.sessionTime(device.expected[index])
                if atRisk(device, index) {
                    lostInWindow += tally.count(device.id, index) == 0 ? 1 : 0
                    twiceInWindow += tally.count(device.id, index) > 1 ? 1 : 0
                    #expect(tally.count(device.id, index) <= 1, "\(device.id) swing \(index) at \(start) s published \(tally.count(device.id, index)) times")
                } else {
                    #expect(tally.count(device.id, index) == 1, "\(device.id) swing \(index) at \(start) s; freeze at \(stoppedAt) s, thaw at \(thawedAt) s")
                }
                if victims.contains(device.id), start > thawedAt + 4 { afterThaw += 1 }
            }
        }
        // Every output carries the publishing instance and its partition's epoch.
        for message in messages where message.topic.hasSuffix("/swing") {
            let instance = message.properties.userProperties.first { $0.name == "instance" }?.value
            #expect(instance != nil && message.properties.userProperties.contains { $0.name == "epoch" }, "outputs carry instance and epoch")
        }
        #expect(afterThaw > 0, "gw-b's watches swung after it joined again")
        #expect(tally.unmatched.allSatisfy { victims.contains($0.0) }, "\(tally)")
        #expect(ClusterHarness.metric(messages, "gw-b", "gateway_cluster_partition_changes_total", labels: ["change": "lost"]) ?? 0 >= Double(ClusterHarness.share(of: "gw-b", among: run.names)), "gw-b learnt of the loss")
        #expect(
            ClusterHarness.metric(messages, "gw-b", "gateway_cluster_partition_changes_total", labels: ["change": "gained"]) ?? 0 >= Double(2 * ClusterHarness.share(of: "gw-b", among: run.names)),
            "gw-b held its share at the start and again after joining anew")
        print("cluster freeze: \(victims.count) watches of gw-b; SIGSTOP at \(stoppedAt) s, SIGCONT at \(thawedAt) s; in the window \(window) \(lostInWindow) swings lost, \(twiceInWindow) published twice; \(afterThaw) of its swings started after the thaw + 4 s; \(tally)")
        await run.shutdown()
    }
}
