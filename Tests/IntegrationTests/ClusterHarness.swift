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

/// What the partitioned-mode suites share: instance arguments, a database per test, an
/// observer, metrics read from the instances' published metrics, and `Run`, one test's cluster
/// of real `wearable-gateway` processes on one mosquitto with 30 watches playing seeded swing
/// sessions (docs/scale-out.md states the guarantees the suites hold the gateway to).
enum ClusterHarness {
    /// An instance's arguments: partitioned, named `name`, on the shared store at `store`.
    static func arguments(_ name: String, store: String) -> [String] {
        [
            "--set", "cluster.mode=partitioned", "--set", "cluster.instance=\(name)", "--set", "registry.file=null",
            "--set", "cluster.heartbeatInterval=0.5", "--set", "cluster.leaseTime=3", "--set", "metrics.publishInterval=0.2",
            "--set", "store.backend=postgres", "--set", "store.url=\(store)",
        ]
    }

    /// A new database on the test PostgreSQL (`WG_TEST_POSTGRES_URL`), as the `store.url` all
    /// instances of one test share.
    static func makeStore(on server: String? = TestPostgres.url) async throws -> String {
        let settings = try await TestPostgres.makeDatabase(on: server)
        return "postgres://\(settings.user)@\(settings.host):\(settings.port)/\(settings.database)?sslmode=disable"
    }

    /// The observer: swings, availability, the instances' metrics, and the fleet status.
    /// - Parameter persistent: with a session the broker keeps (and a persistent broker keeps
    ///   across its restart), so nothing published while the observer is away is missed.
    static func observe(_ broker: TestBroker, persistent: Bool = false) async throws -> (client: MQTTClient, collector: MessageCollector) {
        try await TestClients.observer(
            try client(broker, persistent: persistent), subscribedTo: ["gateway/+/swing", "gateway/+/availability", "gateway/instances/+/metrics", "gateway/status"])
    }

    /// A test client's configuration; `persistent`, with a session the broker keeps for 10 minutes.
    static func client(_ broker: TestBroker, persistent: Bool) throws -> MQTTClientConfiguration {
        var configuration = try TestClients.configuration(broker)
        if persistent {
            configuration.cleanStart = false
            configuration.sessionExpiry = 600
        }
        return configuration
    }

    /// Per device, the frame numbers `0..<rounds` that no output in `seen` carries (devices with
    /// none missing left out).
    static func framesWithoutOutput(_ devices: [String], rounds: Int, seen: [(device: String, date: Int)]) -> [(String, [Int])] {
        devices.compactMap { device -> (String, [Int])? in
            let dates = Set(seen.filter { $0.device == device }.map(\.date))
            let absent = (0..<rounds).filter { !dates.contains($0) }
            return absent.isEmpty ? nil : (device, absent)
        }
    }

    /// The partitions `instance` holds once the ownership of `instances` has settled.
    static func share(of instance: String, among instances: [String]) -> Int {
        PartitionAssignment(partitions: OwnershipPartitions(), instances: instances).partitions(of: instance).count
    }

    /// The instance among `instances` that holds `device`'s partition once they have settled.
    static func owner(of device: String, among instances: [String]) -> String? {
        let partitions = OwnershipPartitions()
        return PartitionAssignment(partitions: partitions, instances: instances).instance(for: partitions.partition(of: device))
    }

    /// The devices among `devices` whose partition `instance` holds once `instances` have settled.
    static func devices(_ devices: [String], of instance: String, among instances: [String]) -> Set<String> {
        let partitions = OwnershipPartitions()
        let assignment = PartitionAssignment(partitions: partitions, instances: instances)
        return Set(devices.filter { assignment.instance(for: partitions.partition(of: $0)) == instance })
    }

    /// The sum of metric `name` (with `labels`) of `instance`'s own run in the newest metrics it
    /// published (a stand-in it runs has its series there too, under the dead instance's name).
    static func metric(_ messages: [MQTTMessage], _ instance: String, _ name: String, labels: [String: String] = [:]) -> Double? {
        PrometheusText.latest(in: messages, topic: "gateway/instances/\(instance)/metrics")?
            .sum(name, labels: labels.merging(["gateway_instance": instance]) { given, _ in given })
    }

    /// The sum of metric `name` (with `labels`) of `dead`'s stand-ins, in the newest metrics
    /// each of `adopters` published (a stand-in's series live in its adopter's registry).
    static func standInMetric(_ messages: [MQTTMessage], of dead: String, adopters: [String], _ name: String, labels: [String: String] = [:]) -> Double {
        adopters.filter { $0 != dead }.map { adopter in
            PrometheusText.latest(in: messages, topic: "gateway/instances/\(adopter)/metrics")?
                .sum(name, labels: labels.merging(["gateway_instance": dead, "gateway_stand_in": adopter]) { given, _ in given }) ?? 0
        }.reduce(0, +)
    }

    /// Waits until `instances` together hold the subscriptions of `count` devices, none of them
    /// waiting for its SUBACK (their metrics, so a little after the broker acknowledged them).
    static func waitSubscribed(_ collector: MessageCollector, _ instances: [String], count: Int) async throws {
        try await collector.wait(timeout: 30, "\(instances)' subscriptions of all \(count) devices") { messages in
            instances.map { metric(messages, $0, "gateway_cluster_device_subscriptions") ?? 0 }.reduce(0, +) == Double(count)
                && instances.allSatisfy { metric(messages, $0, "gateway_cluster_subscriptions_pending") == 0 }
        }
    }

    /// Waits until the ownership of `names` has settled: each holds exactly its share of the
    /// partitions (the assignment over `names`) and warms up none.
    static func waitLive(_ collector: MessageCollector, _ names: [String], count: Int) async throws {
        try await collector.wait(timeout: 30, "\(names) to hold their shares of the partitions") { messages in
            names.allSatisfy { name in
                metric(messages, name, "gateway_cluster_partitions", labels: ["state": "held"]) == Double(share(of: name, among: names))
                    && metric(messages, name, "gateway_cluster_partitions", labels: ["state": "warming"]) == 0
            }
        }
    }

    /// Waits until `predicate` holds of the observed messages; a failure names each instance's
    /// ownership as its metrics last showed it and the notable lines of its log (a wait on the
    /// ownership settling tells nothing without them).
    static func waitForOwnership(
        _ collector: MessageCollector, _ gateways: [GatewayProcess], timeout: Double, _ what: String, until predicate: @escaping @Sendable ([MQTTMessage]) -> Bool
    ) async throws {
        do {
            try await collector.wait(timeout: timeout, what, until: predicate)
        } catch {
            throw TestFailure("timed out after \(timeout) s waiting for \(what)\n\(ownershipReport(collector.messages, gateways))")
        }
    }

    /// Each instance's ownership in its last metrics in `messages`, and its log's ownership,
    /// store and warning lines.
    static func ownershipReport(_ messages: [MQTTMessage], _ gateways: [GatewayProcess]) -> String {
        gateways.map { gateway in
            let name = gateway.instance ?? "?"
            let value = { (name_: String, labels: [String: String]) in
                metric(messages, name, name_, labels: labels).map { String(Int($0)) } ?? "-"
            }
            let lines = gateway.log.split(separator: "\n").filter { $0.contains("ownership") || $0.contains("store") || $0.contains(" warning ") || $0.contains(" error ") }.suffix(40)
            return "\(name): held \(value("gateway_cluster_partitions", ["state": "held"])), warming \(value("gateway_cluster_partitions", ["state": "warming"])), "
                + "past deadline \(value("gateway_cluster_lease_past_deadline", [:])), heartbeats failing \(value("gateway_cluster_heartbeats_failing", [:])), "
                + "listing failures \(value("gateway_cluster_listing_failures_total", [:])), device subscriptions \(value("gateway_cluster_device_subscriptions", [:])), "
                + "frames not owned \(value("gateway_cluster_frames_not_owned_total", [:])), shadowed \(value("gateway_cluster_frames_shadowed_total", [:])), "
                + "unrestored \(value("gateway_cluster_frames_unrestored_total", [:])), restore waits \(value("gateway_device_restore_waits_total", [:]))\n"
                + lines.joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// Starts instances `names` (with `extra` arguments) and waits until each has subscribed.
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

    /// Plays every device's `status` in the background, alternating online and offline, `rounds`
    /// times, one round every `interval` seconds (the devices' pace, not a synchronisation); the
    /// frame of round n carries the date `baseDate + n`, which its `gateway/{id}/connection`
    /// output repeats, so the dates an observer sees per device are the frames processed.
    static func playStatus(_ devices: [String], rounds: Int, interval: Double, baseDate: Int, with client: MQTTClient) -> Task<Void, any Error> {
        Task {
            let clock = ContinuousClock()
            let start = clock.now
            for index in 0..<rounds {
                for device in devices {
                    try await client.send(
                        MQTTMessage(topic: "wearables/\(device)/status", string: #"{"state":"\#(index % 2 == 0 ? "online" : "offline")","date":\#(baseDate + index)}"#))
                }
                try await Task.sleep(until: start + .seconds(interval * Double(index + 1)), clock: clock)
            }
        }
    }

    /// What a late subscriber reads as each device's retained `gateway/{id}/connection`: the
    /// devices whose retained message is not their newest frame's (`baseDate + newest`), with the
    /// frame number read (nil: none retained). Waits (bounded) for a retained message of every
    /// device; an empty answer means every device's retained state is its newest.
    static func staleRetainedConnections(_ broker: TestBroker, devices: [String], newest: Int, baseDate: Int) async throws -> [String: Int?] {
        let read = WatchedState([String: Int]())
        let reader = try await TestClients.subscribed(broker, to: ["gateway/+/connection"]) { message in
            guard message.retain, let object = try? JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any],
                let date = object["date"] as? Double
            else { return }
            read.update { $0[String(message.topic.split(separator: "/")[1])] = Int(date) - baseDate }
        }
        _ = await read.wait(timeout: 10) { table in devices.allSatisfy { table[$0] != nil } }
        await reader.shutdown()
        let table = read.value
        var stale: [String: Int?] = [:]
        for device in devices where table[device] != newest { stale[device] = table[device] }
        return stale
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
        /// The loopback proxy every instance reaches PostgreSQL through (`storeBehindProxy`).
        var storeProxy: TCPProxy? = nil

        /// - Parameters:
        ///   - storeBehindProxy: the instances reach the store through one ``TCPProxy``
        ///     (``storeProxy``), so a test can cut them all off from it.
        ///   - server: the PostgreSQL server of the store (default: WG_TEST_POSTGRES_URL's); a new
        ///     database is made on it.
        ///   - persistentBroker: the broker keeps sessions across a graceful restart, and the
        ///     observer's and the devices' connections have sessions it keeps.
        static func start(
            swings: Int, names: [String] = ["gw-a", "gw-b", "gw-c"], extra: [String] = [], storeBehindProxy: Bool = false, server: String? = nil,
            persistentBroker: Bool = false
        ) async throws -> Run {
            let broker = try await TestBroker.started(persistent: persistentBroker)
            var store = try await ClusterHarness.makeStore(on: server ?? TestPostgres.url)
            var proxy: TCPProxy?
            if storeBehindProxy {
                var url = try #require(URLComponents(string: store))
                proxy = try TCPProxy(upstreamPort: try #require(url.port))
                url.port = proxy?.port
                store = try #require(url.string)
            }
            let (observer, collector) = try await ClusterHarness.observe(broker, persistent: persistentBroker)
            let fleet = SwingFleetSession(count: 30, swings: swings)
            let gateways = try await ClusterHarness.start(names, on: broker, store: store, extra: extra)
            try await ClusterHarness.waitLive(collector, names, count: names.count)
            let devices = try await TestClients.connected(try ClusterHarness.client(broker, persistent: persistentBroker))
            try await fleet.begin(with: devices, availability: collector)
            return Run(
                broker: broker, store: store, observer: observer, collector: collector, names: names, fleet: fleet, gateways: gateways, devices: devices,
                storeProxy: proxy)
        }

        /// Waits until `predicate` holds (``ClusterHarness/waitForOwnership(_:_:timeout:_:until:)``).
        func waitForOwnership(timeout: Double, _ what: String, until predicate: @escaping @Sendable ([MQTTMessage]) -> Bool) async throws {
            try await ClusterHarness.waitForOwnership(collector, gateways, timeout: timeout, what, until: predicate)
        }

        /// Each instance's ownership in its last metrics, and its log's notable lines.
        func ownershipReport() -> String { ClusterHarness.ownershipReport(collector.messages, gateways) }

        /// The watches whose partition `instance` holds among `instances`.
        func watches(of instance: String, among instances: [String]) -> Set<String> {
            ClusterHarness.devices(fleet.devices.map(\.id), of: instance, among: instances)
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
            do {
                try await collector.wait(timeout: 60, "\(expected) swings") { [fleet] in fleet.tally($0).published >= expected }
            } catch {
                let tally = fleet.tally(collector.messages)
                let missing = fleet.devices.flatMap { device in
                    device.expected.indices.filter { tally.count(device.id, $0) == 0 }.map { "\(device.id)#\($0)@\(device.sessionTime(device.expected[$0]))" }
                }
                throw TestFailure("timed out after 60 s waiting for \(expected) swings; missing \(missing)\n\(ownershipReport())")
            }
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

        /// The swings `atRisk` says were at risk and are not in `tally`; every other swing must be
        /// in it exactly once (`fault`, when it happened, goes into each failure).
        func lostInWindow(_ tally: SwingFleetSession.Tally, atRisk: (SwingFleetSession.Device, Int) -> Bool, _ fault: String) -> Int {
            for device in fleet.devices {
                for index in device.expected.indices where !atRisk(device, index) {
                    #expect(tally.count(device.id, index) == 1, "\(device.id) swing \(index) at \(device.sessionTime(device.expected[index])) s; \(fault)")
                }
            }
            return lostByDevice(tally, atRisk: atRisk).values.reduce(0, +)
        }

        /// Per device (those with any), the swings `atRisk` says were at risk and are not in `tally`.
        func lostByDevice(_ tally: SwingFleetSession.Tally, atRisk: (SwingFleetSession.Device, Int) -> Bool) -> [String: Int] {
            var lost: [String: Int] = [:]
            for device in fleet.devices {
                let count = device.expected.indices.filter { atRisk(device, $0) && tally.count(device.id, $0) == 0 }.count
                if count > 0 { lost[device.id] = count }
            }
            return lost
        }

        /// What a fault test asserts of the swings at its end: none published twice, none of
        /// another watch than `victims`' missing, every one outside the fault's window (`atRisk`)
        /// published once, each watch's in session order. Returns the tally and how many swings
        /// of the window were lost, for the test's report.
        func expectOnceInOrder(
            victims: Set<String>, atRisk: (SwingFleetSession.Device, Int) -> Bool, _ fault: String
        ) -> (tally: SwingFleetSession.Tally, lostInWindow: Int) {
            let tally = fleet.tally(collector.messages)
            #expect(tally.duplicates == 0, "\(tally); \(fault)")
            #expect(tally.unmatched.allSatisfy { victims.contains($0.0) }, "\(tally); \(fault)")
            let lost = lostInWindow(tally, atRisk: atRisk, fault)
            let outOfOrder = fleet.outOfOrder(collector.messages)
            #expect(outOfOrder.isEmpty, "swings published out of their session order: \(outOfOrder); \(fault)")
            return (tally, lost)
        }

        func shutdown() async {
            await devices.shutdown()
            await observer.shutdown()
            storeProxy?.stop()
        }
    }
}
