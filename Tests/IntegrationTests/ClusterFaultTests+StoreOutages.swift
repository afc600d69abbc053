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

/// ClusterFaultTests with the store away: the instances reach PostgreSQL through a loopback
/// proxy the test cuts, from every instance during a join and during a death, and from one
/// instance only. Every published swing or frame is matched to what was sent; a loss is allowed
/// only in the documented window of the fault. The same suite (its tests one at a time): as a
/// suite of its own beside the other multi-instance suites, two cores did not keep up with the
/// fault windows (three CI and local runs of four failed on 2026-11-27, docs/testing.md).
extension ClusterFaultTests {
    @Test(
        "PostgreSQL away from every instance for 8 s while a joining fourth warms up: nothing is accepted while it is away, the hand-over completes after; every swing published once")
    func handOverDuringStoreOutage() async throws {
        var run = try await ClusterHarness.Run.start(swings: 10, storeBehindProxy: true)
        let (collector, fleet, names) = (run.collector, run.fleet, run.names)
        let proxy = try #require(run.storeProxy)
        let all = names + ["gw-d"]
        let moving = run.watches(of: "gw-d", among: all)
        let dShare = ClusterHarness.share(of: "gw-d", among: all)
        let (clockStart, playing) = run.play()
        try await collector.wait(timeout: 60, "30 swings") { fleet.tally($0).published >= 30 }
        let lostCount = { (messages: [MQTTMessage]) in
            names.compactMap { ClusterHarness.metric(messages, $0, "gateway_cluster_partition_changes_total", labels: ["change": "lost"]) }.reduce(0, +)
        }
        let lostBefore = lostCount(collector.messages)
        run.gateways.append(try GatewayProcess(broker: run.broker, arguments: ClusterHarness.arguments("gw-d", store: run.store)))
        // Cut while gw-d warms up (cluster.handoverWarmup 3 s), before it could accept.
        try await collector.wait(timeout: 30, "gw-d warming up its share") { messages in
            ClusterHarness.metric(messages, "gw-d", "gateway_cluster_partitions", labels: ["state": "warming"]) == Double(dShare)
        }
        let outage = 8.0
        proxy.cut(refusingFor: outage)
        let cutAt = (ContinuousClock.now - clockStart) / .seconds(1)
        try await collector.wait(timeout: 10, "every instance past its deadline") { messages in
            all.allSatisfy { ClusterHarness.metric(messages, $0, "gateway_cluster_lease_past_deadline") == 1 }
        }
        #expect(ClusterHarness.metric(collector.messages, "gw-d", "gateway_cluster_partitions", labels: ["state": "held"]) == 0, "nothing accepted while the store is away")
        try await run.waitForOwnership(timeout: 40, "gw-d holding its share after the store came back") { messages in
            ClusterHarness.metric(messages, "gw-d", "gateway_cluster_partitions", labels: ["state": "held"]) == Double(dShare)
                && all.allSatisfy { ClusterHarness.metric(messages, $0, "gateway_cluster_lease_past_deadline") == 0 }
        }
        let handedAt = (ContinuousClock.now - clockStart) / .seconds(1)
        try await run.endAndWaitForAll(playing)
        let beforeStop = collector.messages
        try await ClusterHarness.stop(run.gateways, collector: collector)

        let tally = fleet.tally(collector.messages)
        #expect(tally.published == run.expected && tally.unmatched.isEmpty, "\(tally)")
        #expect(tally.duplicates == 0, "\(tally) (\(moving.count) moving watches)")
        let lost = lostCount(beforeStop) - lostBefore
        #expect(lost == Double(dShare), "the others gave up exactly gw-d's share, once: \(lost) of \(dShare)")
        print("cluster hand-over during a store outage: \(moving.count) watches in gw-d's \(dShare) partitions; store cut at \(cutAt) s for \(outage) s; gw-d held its share at \(handedAt) s; the others lost \(lost); \(tally)")
        await run.shutdown()
    }

    @Test("PostgreSQL away from every instance for 8 s and one of them killed meanwhile: the others' own watches' swings are published once the store is back; nobody takes the dead one's partitions until the store is back, then the others do and restore its watches from the store; every swing outside that window once")
    func deathDuringStoreOutage() async throws {
        let run = try await ClusterHarness.Run.start(swings: 14, storeBehindProxy: true)
        let (collector, fleet, gateways) = (run.collector, run.fleet, run.gateways)
        let proxy = try #require(run.storeProxy)
        let victims = run.watches(of: "gw-b", among: run.names)
        let survivors = ["gw-a", "gw-c"]
        let (clockStart, playing) = run.play()
        try await run.waitForSwings(of: victims, 15, "15 swings of gw-b's watches")
        let outage = 8.0
        // Partitions lost so far: the hand-overs of the start, when the instances came up one by
        // one (over once each holds its share).
        let settled = try await collector.wait(timeout: 30, "every instance holding its share") { messages in
            run.names.allSatisfy {
                ClusterHarness.metric(messages, $0, "gateway_cluster_partitions", labels: ["state": "held"]) == Double(ClusterHarness.share(of: $0, among: run.names))
            }
        }
        let lostAtStart = survivors.map { ClusterHarness.metric(settled, $0, "gateway_cluster_partition_changes_total", labels: ["change": "lost"]) ?? 0 }
        proxy.cut(refusingFor: outage)
        let cutAt = (ContinuousClock.now - clockStart) / .seconds(1)
        gateways[1].signal(SIGKILL)
        _ = try await gateways[1].waitForExit(timeout: 10)
        // Past their deadlines the survivors say so; their outputs wait for the store (fenced outputs).
        try await collector.wait(timeout: 10, "both survivors past their deadline") { messages in
            survivors.allSatisfy { ClusterHarness.metric(messages, $0, "gateway_cluster_lease_past_deadline") == 1 }
        }
        let pastDeadlineAt = (ContinuousClock.now - clockStart) / .seconds(1)
        #expect(
            survivors.allSatisfy { ClusterHarness.metric(collector.messages, $0, "gateway_cluster_partitions", labels: ["state": "held"]) == Double(ClusterHarness.share(of: $0, among: run.names)) },
            "nothing moved while the store was away")
        // Back: the survivors take gw-b's partitions (its leases ran out on the server's clock).
        try await run.waitForOwnership(timeout: 30, "the survivors holding all 1,024 partitions") { messages in
            survivors.map { ClusterHarness.metric(messages, $0, "gateway_cluster_partitions", labels: ["state": "held"]) ?? 0 }.reduce(0, +) == 1_024
                && survivors.allSatisfy { ClusterHarness.metric(messages, $0, "gateway_cluster_lease_past_deadline") == 0 }
        }
        let takenAt = (ContinuousClock.now - clockStart) / .seconds(1)
        // At risk: gw-b's watches' swings from the kill until the survivors subscribed them after
        // the store came back (what they sent meanwhile reached only gw-b's session).
        let window = (cutAt - 3)...(takenAt + 3)
        let atRisk: @Sendable (SwingFleetSession.Device, Int) -> Bool
        do {
            atRisk = try await run.endAndWaitForAll(but: victims, startingIn: window, playing)
        } catch {
            let tally = fleet.tally(collector.messages)
            let missing = fleet.devices.flatMap { device in
                device.expected.indices.filter { tally.count(device.id, $0) == 0 }.map { "\(device.id)#\($0)@\(device.sessionTime(device.expected[$0]))\(victims.contains(device.id) ? "(gw-b)" : "")" }
            }
            Issue.record("cut at \(cutAt) s, taken at \(takenAt) s; missing \(missing)")
            throw error
        }
        // When the store came back every instance row and lease had run out, and a survivor back
        // first saw itself alone. LeaseHolder.quietUntil keeps it from taking the other's
        // partitions for one lease time (without it a swing was lost here in the flap). Counted
        // from the cut: the start's hand-overs are losses too (a CI run's 697 were those).
        let lostPartitions = zip(survivors, lostAtStart).map { name, before in
            (name, Int((ClusterHarness.metric(collector.messages, name, "gateway_cluster_partition_changes_total", labels: ["change": "lost"]) ?? 0) - before))
        }
        #expect(lostPartitions.allSatisfy { $0.1 == 0 }, "a survivor lost partitions after the outage: \(lostPartitions)")
        try await ClusterHarness.stop([gateways[0], gateways[2]], collector: collector)

        let messages = collector.messages
        let tally = fleet.tally(messages)
        #expect(tally.duplicates == 0, "\(tally)")
        let lostInWindow = run.lostInWindow(tally, atRisk: atRisk, "cut and kill at \(cutAt) s, all taken at \(takenAt) s")
        let duringOutage = fleet.devices.filter { !victims.contains($0.id) }.map { device in
            device.expected.indices.filter { index in
                let start = device.sessionTime(device.expected[index])
                return start > cutAt + 3 && start < cutAt + outage && tally.count(device.id, index) == 1
            }.count
        }.reduce(0, +)
        #expect(duringOutage > 0, "the survivors' own watches swung while the store was away, and were published once it was back")
        let afterReturn = fleet.devices.filter { victims.contains($0.id) }.map { device in
            device.expected.indices.filter { device.sessionTime(device.expected[$0]) > takenAt + 3 }.count
        }.reduce(0, +)
        #expect(afterReturn > 0, "gw-b's watches swung after the take-over, published once each (their sessions came from the store)")
        let restored = survivors.map { ClusterHarness.metric(messages, $0, "gateway_devices_restored_total") ?? 0 }.reduce(0, +)
        #expect(restored >= Double(victims.count), "the survivors restored gw-b's \(victims.count) watches from the store: \(restored)")
        print("cluster store outage: \(victims.count) watches of gw-b; store cut and gw-b killed at \(cutAt) s for \(outage) s; survivors past deadline by \(pastDeadlineAt) s; all partitions held at \(takenAt) s; \(duringOutage) of the survivors' swings during the outage; \(lostInWindow) of gw-b's lost in \(window); \(afterReturn) of gw-b's after; restored \(restored); partitions lost from the cut to the stop: \(lostPartitions); \(tally)")
        await run.shutdown()
    }

    @Test("the store cut off from one of two instances for 8 s while devices stream, the broker reachable: taken for dead, it is adopted; its stand-in takes its session and partitions and hands them to the other; back on the store the first registers again once the stand-in left and gets its share back by hand-over; nothing flaps, no frame unprocessed")
    func storeCutOff() async throws {
        let broker = try await TestBroker.started()
        let store = try await ClusterHarness.makeStore()
        // gw-a reaches PostgreSQL through a proxy on loopback, gw-b directly; both reach the broker.
        var url = try #require(URLComponents(string: store))
        let proxy = try TCPProxy(upstreamPort: try #require(url.port))
        url.port = proxy.port
        let proxied = try #require(url.string)
        let (observer, collector) = try await TestClients.observer(broker, subscribedTo: ["gateway/+/connection", "gateway/+/availability", "gateway/instances/+/metrics", "gateway/status"])
        let names = ["gw-a", "gw-b"]
        let gateways = [
            try GatewayProcess(broker: broker, arguments: ClusterHarness.arguments("gw-a", store: proxied)),
            try GatewayProcess(broker: broker, arguments: ClusterHarness.arguments("gw-b", store: store)),
        ]
        for gateway in gateways { try await gateway.waitUntilSubscribed() }
        try await ClusterHarness.waitLive(collector, names, count: 2)
        let devices = (0..<12).map { "sc-watch-\($0)" }
        let cutOff = Set(devices.filter { ClusterHarness.owner(of: $0, among: names) == "gw-a" })
        #expect(!cutOff.isEmpty && cutOff.count < devices.count)
        let client = try await TestClients.connected(try TestClients.configuration(broker))
        for device in devices { try await client.send(PerDeviceSubscriptionTests.hello(device)) }
        try await collector.wait(timeout: 30, "every availability") { messages in devices.allSatisfy { device in messages.contains { $0.topic == "gateway/\(device)/availability" } } }

        // Each device's status alternates 5 times a second (the devices' pace), each with its own date.
        let baseDate = 1_800_000_000
        let rounds = 200
        let streaming = ClusterHarness.playStatus(devices, rounds: rounds, interval: 0.2, baseDate: baseDate, with: client)
        @Sendable func outputs(_ messages: [MQTTMessage]) -> [(device: String, date: Int, instance: String, epoch: Int)] {
            messages.compactMap { message in
                guard message.topic.hasSuffix("/connection"), let object = try? JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any],
                    let date = object["date"] as? Double, let instance = message.properties.userProperties.first(where: { $0.name == "instance" })?.value,
                    let epoch = message.properties.userProperties.first(where: { $0.name == "epoch" }).flatMap({ Int($0.value) })
                else { return nil }
                // A stand-in continues gw-a's leases under gw-a's name and epochs; its adopter's
                // name tells its outputs from gw-a's own ("gw-a@gw-b").
                let standIn = message.properties.userProperties.first(where: { $0.name == "stand-in" }).map { "@\($0.value)" } ?? ""
                return (String(message.topic.split(separator: "/")[1]), Int(date) - baseDate, instance + standIn, epoch)
            }
        }
        try await collector.wait(timeout: 30, "gw-a publishing its devices' connections") { messages in outputs(messages).filter { $0.instance == "gw-a" }.count >= 10 * cutOff.count }
        let before = outputs(collector.messages)
        let cutAt = before.map(\.date).max() ?? 0
        proxy.cut(refusingFor: 8)
        // Once gw-a's leases ran out (3 s), gw-b adopts it: the stand-in resumes gw-a's session
        // (gw-a's subscriber, past its deadline, does not take it back) and hands gw-a's
        // partitions to gw-b, which publishes for them.
        try await collector.wait(timeout: 20, "gw-b publishing gw-a's devices") { messages in
            outputs(messages).contains { cutOff.contains($0.device) && $0.instance == "gw-b" }
        }
        try await collector.wait(timeout: 10, "gw-a past its deadline") { ClusterHarness.metric($0, "gw-a", "gateway_cluster_lease_past_deadline") == 1 }
        // Back on the store, gw-a learns of the loss, joins again and gets its share back.
        try await ClusterHarness.waitForOwnership(collector, gateways, timeout: 30, "gw-a back with its share") { messages in
            ClusterHarness.metric(messages, "gw-a", "gateway_cluster_lease_past_deadline") == 0
                && ClusterHarness.metric(messages, "gw-a", "gateway_cluster_partitions", labels: ["state": "held"]) == Double(ClusterHarness.share(of: "gw-a", among: names))
        }
        let backAt = outputs(collector.messages).map(\.date).max() ?? 0
        try await streaming.value
        #expect(await client.flush(timeout: 30))
        try await collector.wait(timeout: 30, "every device's last frame") { messages in
            let last = Set(outputs(messages).filter { $0.date == rounds - 1 }.map(\.device))
            return devices.allSatisfy(last.contains)
        }
        try await ClusterHarness.stop(gateways, collector: collector)
        let seen = outputs(collector.messages)

        // Fenced outputs (docs/scale-out.md): gw-a publishes only what the store recorded under
        // its lease, so nothing of what it derived after the cut: the stand-in continued its
        // leases under another run, and gw-a's records were refused once it was back.
        let firstEpoch = Dictionary(before.filter { $0.instance == "gw-a" }.map { ($0.device, $0.epoch) }, uniquingKeysWith: min)
        let whileCut = seen.filter { $0.instance == "gw-a" && cutOff.contains($0.device) && $0.date > cutAt + 2 && $0.epoch == firstEpoch[$0.device] }
        #expect(whileCut.isEmpty, "gw-a published after the cut what the store could not record: \(whileCut)")
        // The stand-in continues gw-a's leases under the next epoch (another run publishes: two
        // runs never share one); then greater epochs only: gw-b's, gw-a's again. Nothing changed
        // hands more than twice (handed to gw-b, handed back).
        for device in cutOff {
            let pairs = Set(seen.filter { $0.device == device }.map { "\($0.instance)#\($0.epoch)" })
            #expect(pairs.count <= 4, "\(device) published under \(pairs.sorted())")
            let held = before.filter { $0.device == device && $0.instance == "gw-a" }.map(\.epoch).max() ?? -1
            let continued = Set(seen.filter { $0.device == device && $0.instance == "gw-a@gw-b" }.map(\.epoch))
            #expect(continued.isSubset(of: [held + 1]), "\(device): the stand-in's epochs \(continued), gw-a's before the cut \(held)")
            let taken = seen.filter { $0.device == device && $0.instance == "gw-b" }.map(\.epoch)
            #expect(taken.allSatisfy { $0 > firstEpoch[device] ?? 0 }, "\(device): gw-b's epochs \(Set(taken)) above gw-a's \(firstEpoch[device] ?? -1)")
        }
        let others = devices.filter { !cutOff.contains($0) }
        #expect(others.allSatisfy { device in Set(seen.filter { $0.device == device }.map(\.instance)) == ["gw-b"] }, "gw-b's own devices never moved")
        let missing = ClusterHarness.framesWithoutOutput(devices, rounds: rounds, seen: seen.map { ($0.device, $0.date) })
        let adoptions = ClusterHarness.metric(collector.messages, "gw-b", "gateway_cluster_adoptions_total") ?? 0
        print("cluster store cut: gw-a (\(cutOff.count) devices) cut from PostgreSQL for 8 s from frame \(cutAt), back by frame \(backAt); published past its deadline \(whileCut.count); adopted by gw-b \(adoptions) time(s); frames without output: \(missing)")
        #expect(adoptions == 1, "gw-a adopted once")
        // gw-a acknowledges a frame only once its outputs are published (docs/scale-out.md,
        // *Acknowledged after publishing*): what it received after the cut stayed in its session,
        // and the stand-in that took the session over processed it. The stand-in starts from the
        // state gw-a stored before the cut, so its first frame of a device, if it repeats that
        // stored status, publishes nothing: at most one frame a device, between the cut and the
        // stand-in's first output of a frame after the cut.
        let takenOver = Dictionary(seen.filter { $0.instance == "gw-a@gw-b" && $0.date > cutAt }.map { ($0.device, $0.date) }, uniquingKeysWith: min)
        #expect(
            missing.allSatisfy { device, absent in
                cutOff.contains(device) && absent.count <= 1 && absent.allSatisfy { $0 > cutAt && $0 <= (takenOver[device] ?? backAt) }
            },
            "frames without output (device, frame numbers): \(missing)")
        let withheld = ClusterHarness.metric(collector.messages, "gw-a", "gateway_cluster_outputs_withheld_total", labels: ["reason": "fenced"]) ?? 0
        let unpublished = missing.map(\.1.count).reduce(0, +)
        // A late reader finds every device's retained connection at its newest frame.
        let stale = try await ClusterHarness.staleRetainedConnections(broker, devices: devices, newest: rounds - 1, baseDate: baseDate)
        #expect(stale.isEmpty, "retained connections not at the newest frame (device: frame read): \(stale)")
        print("cluster store cut: outputs withheld by gw-a (fenced) \(withheld); frames without output \(unpublished); stale retained \(stale.count)")
        await client.shutdown()
        await observer.shutdown()
        proxy.stop()
    }
}
