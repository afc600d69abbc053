import BrokerTestSupport
import MQTTTransport
import PostgresStore
import PostgresTestSupport
import TelemetryCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Partitioned mode through a real mosquitto with real `wearable-gateway` processes: 30
/// watches play seeded swing sessions on their own clock while instances run, die and join;
/// every published swing is matched to the ground truth (docs/scale-out.md states the
/// guarantees these tests hold the gateway to). Clustered modes need the shared PostgreSQL
/// store: each test's instances share a database of their own.
@Suite(
    "Scale-out: partitioned instances on one mosquitto", .serialized,
    .enabled(if: TestPostgres.url != nil, Comment(rawValue: TestPostgres.skipReason)))
struct ClusterTests {
    /// An instance's arguments: partitioned, named `name`, on the shared store at `store`.
    static func arguments(_ name: String, store: String) -> [String] {
        [
            "--set", "cluster.mode=partitioned", "--set", "cluster.instance=\(name)", "--set", "registry.file=null",
            "--set", "cluster.heartbeatInterval=0.5", "--set", "cluster.expiry=3", "--set", "metrics.publishInterval=0.2",
            "--set", "store.backend=postgres", "--set", "store.url=\(store)",
        ]
    }

    /// A new database on the test PostgreSQL (`WG_TEST_POSTGRES_URL`), as the `store.url` all
    /// instances of one test share.
    static func makeStore() async throws -> String {
        let settings = try await TestPostgres.makeDatabase()
        return "postgres://\(settings.user)@\(settings.host):\(settings.port)/\(settings.database)?sslmode=disable"
    }

    /// The observer: swings, instance announcements and metrics, and the fleet status.
    static func observe(_ broker: TestBroker) async throws -> (client: MQTTClient, collector: MessageCollector) {
        try await TestClients.observer(
            broker, subscribedTo: ["gateway/+/swing", "gateway/+/availability", "gateway/instances/+", "gateway/instances/+/metrics", "gateway/status"])
    }

    static func metric(_ messages: [MQTTMessage], _ instance: String, _ name: String, labels: [String: String] = [:]) -> Double? {
        PrometheusText.latest(in: messages, topic: "gateway/instances/\(instance)/metrics")?.sum(name, labels: labels)
    }

    /// Waits until each of `names` reports `count` live instances in its published metrics.
    static func waitLive(_ collector: MessageCollector, _ names: [String], count: Int) async throws {
        try await collector.wait(timeout: 30, "\(names) to see \(count) live instances") { messages in
            names.allSatisfy { metric(messages, $0, "gateway_cluster_live_instances") == Double(count) }
        }
    }

    static func start(_ names: [String], on broker: TestBroker, store: String, extra: [String] = []) async throws -> [GatewayProcess] {
        let gateways = try names.map { try GatewayProcess(broker: broker, arguments: arguments($0, store: store) + extra) }
        for gateway in gateways { try await gateway.waitUntilSubscribed() }
        return gateways
    }

    /// SIGTERM to every instance; each must drain (exit 0), and its last message (the fleet
    /// status it writes offline) must reach the observer, so everything it published did.
    static func stop(_ gateways: [GatewayProcess], collector: MessageCollector) async throws {
        gateways.forEach { $0.signal(SIGTERM) }
        for gateway in gateways { #expect(try await gateway.waitForExit(timeout: 40) == 0, "log:\n\(gateway.log)") }
        let names = gateways.compactMap(\.instance)
        try await collector.wait(timeout: 10, "the offline status of \(names)") { messages in
            names.allSatisfy { name in
                messages.contains { $0.topic == "gateway/status" && $0.payloadString.contains(#""instance":"\#(name)""#) && $0.payloadString.contains(#""reason":"shutdown""#) }
            }
        }
    }

    /// One test's cluster: a broker, its observer, instances gw-a, gw-b, gw-c started and seeing
    /// each other, and 30 watches connected with their sessions begun.
    struct Run {
        let broker: TestBroker
        /// The instances' `store.url`.
        let store: String
        let observer: MQTTClient
        let collector: MessageCollector
        let names: [String]
        let fleet: SwingFleetSession
        var gateways: [GatewayProcess]
        let devices: MQTTClient

        static func start(swings: Int, names: [String] = ["gw-a", "gw-b", "gw-c"], extra: [String] = []) async throws -> Run {
            let broker = try await TestBroker.started()
            let store = try await ClusterTests.makeStore()
            let (observer, collector) = try await ClusterTests.observe(broker)
            let fleet = SwingFleetSession(count: 30, swings: swings)
            let gateways = try await ClusterTests.start(names, on: broker, store: store, extra: extra)
            try await ClusterTests.waitLive(collector, names, count: names.count)
            let devices = try await TestClients.connected(try TestClients.configuration(broker))
            try await fleet.begin(with: devices, availability: collector)
            return Run(broker: broker, store: store, observer: observer, collector: collector, names: names, fleet: fleet, gateways: gateways, devices: devices)
        }

        /// The watches `instance` owns among `instances`.
        func watches(of instance: String, among instances: [String]) -> Set<String> {
            let ownership = RendezvousOwnership(instances: instances)
            return Set(fleet.devices.map(\.id).filter { ownership.owner(of: $0) == instance })
        }

        /// Plays the sessions in the background on a clock starting now.
        func play() -> (clockStart: ContinuousClock.Instant, playing: Task<Void, any Error>) {
            let clockStart = ContinuousClock.now
            return (clockStart, Task { [fleet, devices] in try await fleet.play(with: devices, clockStart: clockStart) })
        }

        /// Waits until `count` swings of `watches` were published.
        func waitForSwings(of watches: Set<String>, _ count: Int, _ what: String) async throws {
            try await collector.wait(timeout: 60, what) { messages in
                messages.filter { message in watches.contains { message.topic == "gateway/\($0)/swing" } }.count >= count
            }
        }

        /// The number of ground-truth swings.
        var expected: Int { fleet.devices.map(\.expected.count).reduce(0, +) }

        /// Ends the sessions and waits for every ground-truth swing.
        func endAndWaitForAll(_ playing: Task<Void, any Error>? = nil) async throws {
            try await playing?.value
            try await fleet.end(with: devices)
            let expected = expected
            try await collector.wait(timeout: 60, "\(expected) swings") { [fleet] in fleet.tally($0).published >= expected }
        }

        /// Ends the sessions and waits until every swing has been published except those of
        /// `watches` starting within `window` (session seconds: a hand-over may lose them).
        /// - Returns: whether a swing is in that window (at risk).
        func endAndWaitForAll(but watches: Set<String>, startingIn window: ClosedRange<Double>, _ playing: Task<Void, any Error>) async throws
            -> @Sendable (SwingFleetSession.Device, Int) -> Bool
        {
            try await playing.value
            try await fleet.end(with: devices)
            let atRisk: @Sendable (SwingFleetSession.Device, Int) -> Bool = { device, index in
                watches.contains(device.id) && window.contains(device.sessionTime(device.expected[index]))
            }
            let settled = fleet.devices.map { device in device.expected.indices.filter { !atRisk(device, $0) }.count }.reduce(0, +)
            try await collector.wait(timeout: 60, "\(settled) swings outside the window \(window)") { [fleet] messages in
                let tally = fleet.tally(messages)
                return fleet.devices.map { device in device.expected.indices.filter { !atRisk(device, $0) && tally.count(device.id, $0) > 0 }.count }.reduce(0, +) >= settled
            }
            return atRisk
        }

        func shutdown() async {
            await devices.shutdown()
            await observer.shutdown()
        }
    }

    @Test("three instances, 30 watches: every ground-truth swing published exactly once across the instances")
    func threeInstancesExactlyOnce() async throws {
        let run = try await Run.start(swings: 6)
        let shares = Dictionary(uniqueKeysWithValues: run.names.map { ($0, run.watches(of: $0, among: run.names).count) })
        #expect(run.names.allSatisfy { shares[$0, default: 0] >= 5 }, "\(shares)")
        try await run.fleet.play(with: run.devices, clockStart: .now)
        try await run.endAndWaitForAll()
        try await Self.stop(run.gateways, collector: run.collector)

        let messages = run.collector.messages
        let tally = run.fleet.tally(messages)
        #expect(tally.published == run.expected && tally.duplicates == 0 && tally.unmatched.isEmpty, "\(tally)")
        for name in run.names {
            #expect(Self.metric(messages, name, "gateway_cluster_frames_not_owned_total") ?? 0 > 0, "\(name) dropped the others' frames")
            #expect(Self.metric(messages, name, "gateway_cluster_handovers_total", labels: ["direction": "gained"]) == Double(shares[name, default: 0]))
        }
        await run.shutdown()
    }

    @Test("SIGKILL of an owner right after its watches started their workouts, long before a snapshot tick: the successors have the sessions from the store, every swing once")
    func killAfterContextFrames() async throws {
        // Snapshot ticks an hour apart: only the writes a context frame makes at once (hello,
        // workout) put the watches' access state and workout sessions into the store.
        let run = try await Run.start(swings: 6, extra: ["--set", "state.snapshotInterval=3600"])
        let (collector, fleet, gateways) = (run.collector, run.fleet, run.gateways)
        let victims = run.watches(of: "gw-b", among: run.names)
        try await collector.wait(timeout: 30, "gw-b's hello and workout writes") { messages in
            Self.metric(messages, "gw-b", "gateway_cluster_context_writes_total") ?? 0 >= Double(2 * victims.count)
        }
        gateways[1].signal(SIGKILL)
        _ = try await gateways[1].waitForExit(timeout: 10)
        let survivors = ["gw-a", "gw-c"]
        // The survivors hold every watch's subscription before the watches stream (what a device
        // sends before its owner's SUBACK reaches nobody: docs/scale-out.md).
        try await collector.wait(timeout: 30, "the survivors' subscriptions of all 30 watches") { messages in
            survivors.map { Self.metric(messages, $0, "gateway_cluster_device_subscriptions") ?? 0 }.reduce(0, +) == 30
                && survivors.allSatisfy { Self.metric(messages, $0, "gateway_cluster_subscriptions_pending") == 0 }
        }
        let (_, playing) = run.play()
        try await run.endAndWaitForAll(playing)
        try await Self.stop([gateways[0], gateways[2]], collector: collector)

        let messages = collector.messages
        let tally = fleet.tally(messages)
        #expect(tally.published == run.expected && tally.duplicates == 0 && tally.unmatched.isEmpty, "\(tally)")
        let restored = survivors.map { Self.metric(messages, $0, "gateway_devices_restored_total") ?? 0 }.reduce(0, +)
        #expect(restored >= Double(victims.count), "the successors restored gw-b's \(victims.count) watches from their claims: \(restored)")
        print("cluster context: \(victims.count) watches of gw-b, killed after their hello and workout were written (snapshot ticks 3600 s apart); restored by the survivors \(restored); \(tally)")
        await run.shutdown()
    }

    @Test("SIGKILL of one instance mid-session: its watches' swings come from the others within 10 s, none twice")
    func killOneInstance() async throws {
        let run = try await Run.start(swings: 8)
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
        // Settled: every swing outside the hand-over window of the victims' watches has arrived.
        let window = (killedAt - 3)...(killedAt + 2)
        let atRisk = try await run.endAndWaitForAll(but: victims, startingIn: window, playing)
        try await Self.stop(survivors, collector: collector)

        let tally = fleet.tally(collector.messages)
        #expect(tally.duplicates == 0, "\(tally)")
        var lostInWindow = 0
        for device in fleet.devices {
            for index in device.expected.indices {
                if atRisk(device, index) {
                    lostInWindow += tally.count(device.id, index) == 0 ? 1 : 0
                } else {
                    #expect(tally.count(device.id, index) == 1, "\(device.id) swing \(index) at \(device.sessionTime(device.expected[index])) s, kill at \(killedAt) s")
                }
            }
        }
        #expect(tally.unmatched.allSatisfy { victims.contains($0.0) }, "\(tally)")
        #expect(collector.messages.contains { $0.topic == "gateway/instances/gw-b" && $0.payloadString.contains(#""reason":"connectionLost""#) })
        print("cluster kill: \(victims.count) watches of gw-b; killed at \(killedAt) s; first post-kill swing after \(takeoverSeconds) s; \(lostInWindow) swings lost in the window \(window); \(tally)")
        await run.shutdown()
    }

    @Test("SIGSTOP of one instance past the expiry, then SIGCONT: it publishes nothing of what queued meanwhile, joins again, every swing at most once")
    func freezeAndThaw() async throws {
        // WG_FAULT_SELF_EXPIRY_OFF=1 (inherited by the instances) runs the control: the thawed
        // instance does not notice it was expired, and publishes its backlog as owner.
        let run = try await Run.start(swings: 12)
        let (collector, fleet, gateways) = (run.collector, run.fleet, run.gateways)
        defer { gateways[1].signal(SIGCONT) }  // never leave it stopped, whatever fails
        let victims = run.watches(of: "gw-b", among: run.names)
        let (clockStart, playing) = run.play()
        try await run.waitForSwings(of: victims, 15, "15 swings of gw-b's watches")
        gateways[1].signal(SIGSTOP)
        let stoppedAt = (ContinuousClock.now - clockStart) / .seconds(1)
        // Frozen until the others expired it (cluster.expiry, 3 s) and published a swing of its
        // watches that started after the freeze: the broker queued those frames for gw-b too.
        try await Self.waitLive(collector, ["gw-a", "gw-c"], count: 2)
        try await collector.wait(timeout: 15, "a swing of gw-b's watches that started after the freeze, from the others") { messages in
            let tally = fleet.tally(messages)
            return fleet.devices.contains { device in
                victims.contains(device.id) && device.expected.indices.contains { device.sessionTime(device.expected[$0]) > stoppedAt && tally.count(device.id, $0) > 0 }
            }
        }
        gateways[1].signal(SIGCONT)
        let thawedAt = (ContinuousClock.now - clockStart) / .seconds(1)
        try await Self.waitLive(collector, run.names, count: 3)
        // Swings of gw-b's watches starting while nobody processed them (from the freeze until
        // the others expired gw-b) may be lost; nothing may be published twice.
        let window = (stoppedAt - 3)...(stoppedAt + 6)
        let atRisk = try await run.endAndWaitForAll(but: victims, startingIn: window, playing)
        try await Self.stop(gateways, collector: collector)

        let messages = collector.messages
        let tally = fleet.tally(messages)
        var lostInWindow = 0
        var afterThaw = 0
        for device in fleet.devices {
            for index in device.expected.indices {
                let start = device.sessionTime(device.expected[index])
                if atRisk(device, index) {
                    lostInWindow += tally.count(device.id, index) == 0 ? 1 : 0
                    #expect(tally.count(device.id, index) <= 1, "\(device.id) swing \(index) at \(start) s published twice (freeze at \(stoppedAt) s)")
                } else {
                    #expect(tally.count(device.id, index) == 1, "\(device.id) swing \(index) at \(start) s; freeze at \(stoppedAt) s, thaw at \(thawedAt) s")
                }
                if victims.contains(device.id), start > thawedAt + 4 { afterThaw += 1 }
            }
        }
        #expect(tally.duplicates == 0, "\(tally)")
        #expect(afterThaw > 0, "gw-b's watches swung after it joined again")
        #expect(tally.unmatched.allSatisfy { victims.contains($0.0) }, "\(tally)")
        #expect(Self.metric(messages, "gw-b", "gateway_cluster_self_lapses_total") ?? 0 >= 1, "gw-b found itself expired")
        #expect(
            Self.metric(messages, "gw-b", "gateway_cluster_handovers_total", labels: ["direction": "gained"]) == Double(2 * victims.count),
            "gw-b gained its watches at the start and again after joining anew")
        print("cluster freeze: \(victims.count) watches of gw-b; SIGSTOP at \(stoppedAt) s, SIGCONT at \(thawedAt) s; \(lostInWindow) swings lost in the window \(window); \(afterThaw) of its swings started after the thaw + 4 s; \(tally)")
        await run.shutdown()
    }

    @Test("a fourth instance joining mid-session warms up and takes over its share: every swing exactly once")
    func fourthInstanceJoins() async throws {
        var run = try await Run.start(swings: 8)
        let (collector, fleet, names) = (run.collector, run.fleet, run.names)
        let moving = run.watches(of: "gw-d", among: names + ["gw-d"])
        #expect(moving.count >= 4, "gw-d's share")
        let (clockStart, playing) = run.play()
        try await collector.wait(timeout: 60, "40 swings") { fleet.tally($0).published >= 40 }
        run.gateways.append(try GatewayProcess(broker: run.broker, arguments: Self.arguments("gw-d", store: run.store)))
        try await collector.wait(timeout: 30, "gw-d online") { messages in
            messages.contains { $0.topic == "gateway/instances/gw-d" && $0.payloadString.contains(#""state":"online""#) }
        }
        let joinedAt = (ContinuousClock.now - clockStart) / .seconds(1)
        // In force once the warm-up is over (cluster.handoverWarmup, 3 s by default).
        try await Self.waitLive(collector, names + ["gw-d"], count: 4)
        try await run.endAndWaitForAll(playing)
        // Before the stop: draining at the end hands devices between the leaving instances too.
        let beforeStop = collector.messages
        try await Self.stop(run.gateways, collector: collector)

        let messages = collector.messages
        let tally = fleet.tally(messages)
        #expect(tally.published == run.expected && tally.duplicates == 0 && tally.unmatched.isEmpty, "\(tally)")
        let afterJoin = fleet.devices.filter { moving.contains($0.id) }.map { device in device.expected.filter { device.sessionTime($0) > joinedAt + 3 }.count }.reduce(0, +)
        #expect(afterJoin > 0, "gw-d's watches swung after it took over")
        #expect(Self.metric(messages, "gw-d", "gateway_cluster_handovers_total", labels: ["direction": "gained"]) == Double(moving.count))
        #expect(Self.metric(messages, "gw-d", "gateway_cluster_frames_shadowed_total") ?? 0 > 0, "gw-d warmed up")
        let lost = names.compactMap { Self.metric(beforeStop, $0, "gateway_cluster_handovers_total", labels: ["direction": "lost"]) }.reduce(0, +)
        #expect(lost == Double(moving.count), "the others released exactly gw-d's share")
        // The switch is gw-d's claims: the old owners let the streaming watches go at each notified claim.
        let handedOver = names.compactMap { Self.metric(beforeStop, $0, "gateway_cluster_handed_over_total") }.reduce(0, +)
        #expect(handedOver >= 1 && handedOver <= lost, "let go at a notified claim: \(handedOver) of \(lost)")
        print("cluster join: \(moving.count) watches moved to gw-d (online at \(joinedAt) s, claimed after its 3 s warm-up), \(handedOver) let go at a notified claim; \(afterJoin) of their swings after that; \(tally)")
        await run.shutdown()
    }

    @Test("SIGTERM of one instance mid-session: it drains while the others warm up, every swing exactly once")
    func gracefulLeave() async throws {
        let run = try await Run.start(swings: 8)
        let (collector, gateways) = (run.collector, run.gateways)
        let leaving = run.watches(of: "gw-b", among: run.names)
        let (clockStart, playing) = run.play()
        try await run.waitForSwings(of: leaving, 20, "20 swings of gw-b's watches")
        gateways[1].signal(SIGTERM)
        let stoppedAt = (ContinuousClock.now - clockStart) / .seconds(1)
        #expect(try await gateways[1].waitForExit(timeout: 40) == 0, "log:\n\(gateways[1].log)")
        try await run.endAndWaitForAll(playing)
        try await Self.stop([gateways[0], gateways[2]], collector: collector)

        let messages = collector.messages
        let tally = run.fleet.tally(messages)
        #expect(tally.published == run.expected && tally.duplicates == 0 && tally.unmatched.isEmpty, "\(tally)")
        let statuses = messages.filter { $0.topic == "gateway/instances/gw-b" }.map(\.payloadString)
        #expect(statuses.contains { $0.contains(#""state":"draining""#) } && statuses.last?.contains(#""reason":"shutdown""#) == true, "\(statuses)")
        let gained = ["gw-a", "gw-c"].compactMap { Self.metric(messages, $0, "gateway_cluster_handovers_total", labels: ["direction": "gained"]) }.reduce(0, +)
        #expect(gained == 30, "the survivors hold every watch")
        // The switch is the next owners' claims: gw-b let its streaming watches go as each claim
        // was notified (its final metrics, published as it stopped), the rest when it left.
        let lost = Self.metric(messages, "gw-b", "gateway_cluster_handovers_total", labels: ["direction": "lost"]) ?? 0
        let handedOver = Self.metric(messages, "gw-b", "gateway_cluster_handed_over_total") ?? 0
        #expect(lost == Double(leaving.count) && handedOver >= 1 && handedOver <= lost, "gw-b lost \(lost), at a notified claim \(handedOver)")
        print("cluster leave: \(leaving.count) watches of gw-b, SIGTERM at \(stoppedAt) s, \(handedOver) of them let go at a notified claim; \(tally)")
        await run.shutdown()
    }

    @Test("shared mode on mosquitto: the group's subscription hands each frame to one instance")
    func sharedSubscription() async throws {
        let broker = try await TestBroker.started()
        let store = try await Self.makeStore()
        let (observer, collector) = try await Self.observe(broker)
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
            ["gw-a", "gw-b"].compactMap { Self.metric(messages, $0, "gateway_frames_processed_total") }.reduce(0, +) >= Double(frames)
        }
        let counts = ["gw-a", "gw-b"].map { Self.metric(received, $0, "gateway_frames_processed_total") ?? 0 }
        #expect(counts.allSatisfy { $0 > 0 } && counts.reduce(0, +) == Double(frames), "\(counts)")
        try await Self.stop(gateways, collector: collector)
        await device.shutdown()
        await observer.shutdown()
    }
}
