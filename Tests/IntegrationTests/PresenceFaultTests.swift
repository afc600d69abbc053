import BrokerTestSupport
import Foundation
import MQTTTransport
import PostgresTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The scale-out issue's own check, as a user would try it: three `partitioned` instances on one
/// PostgreSQL and one mosquitto, 60 devices toggling their presence five times a second at QoS 1
/// (each toggle a change with its own date, so each gives exactly one `gateway/{id}/connection`
/// output), through each fault and move it listed (the store and the broker cut off from one
/// instance through a proxy are ClusterFaultTests' `storeCutOff` and `brokerCutOff`). Per case: no frame without its output, none twice,
/// none out of date order, and a late reader finds every device's retained state at its newest
/// frame (docs/scale-out.md, *Guarantees*).
@Suite(
    "Scale-out: presence through faults", .serialized,
    .enabled(if: TestPostgres.url != nil, Comment(rawValue: TestPostgres.skipReason)))
struct PresenceFaultTests {
    /// A fault of one instance (gw-b) of three, or of the store under all three.
    enum Fault: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// kill -9, not restarted: its stand-in serves its devices from its session.
        case kill
        /// kill -9, started again 2 s later on its own disk and broker session.
        case killAndRestart
        /// SIGSTOP for 12 s (four lease times), then SIGCONT.
        case freeze
        /// PostgreSQL stopped at once (like a crash) and started again.
        case postgresRestart
        /// The broker stopped (SIGTERM, its sessions kept on disk) and started again on its port.
        case brokerRestart
        /// A fourth instance joins: a quarter of the partitions move to it, make-before-break.
        case join
        /// gw-b stops gracefully (SIGTERM) and hands its partitions over.
        case drain

        var testDescription: String { rawValue }

        /// The faults to run: all, or those `WG_PRESENCE_FAULTS` names (comma-separated), to loop one.
        static var chosen: [Fault] {
            guard let names = ProcessInfo.processInfo.environment["WG_PRESENCE_FAULTS"], !names.isEmpty else { return allCases }
            return names.split(separator: ",").compactMap { Fault(rawValue: String($0)) }
        }
    }

    static let rounds = 150
    static let baseDate = 1_800_000_000

    @Test("three instances, 60 devices toggling their presence at QoS 1, through a fault: every frame's output once, in date order, retained state at the newest", arguments: Fault.chosen)
    func presence(through fault: Fault) async throws {
        // Sessions (the instances', the observer's and the devices') survive a broker restart only
        // on a broker that keeps them on disk, with clients whose sessions it keeps.
        let persistent = fault == .brokerRestart
        let broker = try await TestBroker.started(persistent: persistent)
        // The restarted server is one of the test's own: WG_TEST_POSTGRES_URL's serves the suites beside it.
        let server = fault == .postgresRestart ? try await PrivatePostgres.start() : nil
        defer { server?.remove() }
        let store = try await ClusterHarness.makeStore(on: server?.url ?? TestPostgres.url)
        let (observer, collector) = try await TestClients.observer(
            try ClusterHarness.client(broker, persistent: persistent), subscribedTo: ["gateway/+/connection", "gateway/instances/+/metrics", "gateway/status"])
        let names = ["gw-a", "gw-b", "gw-c"]
        var gateways = try await ClusterHarness.start(names, on: broker, store: store)
        defer { gateways[1].signal(SIGCONT) }  // never leave it stopped, whatever fails
        try await ClusterHarness.waitLive(collector, names, count: 3)
        let devices = (0..<60).map { "pf-watch-\($0)" }
        let victims = devices.filter { ClusterHarness.owner(of: $0, among: names) == "gw-b" }
        #expect(!victims.isEmpty)
        let client = try await TestClients.connected(try ClusterHarness.client(broker, persistent: persistent))
        for device in devices { try await client.send(PerDeviceSubscriptionTests.hello(device)) }
        try await ClusterHarness.waitSubscribed(collector, names, count: devices.count)

        let streaming = ClusterHarness.playStatus(devices, rounds: Self.rounds, interval: 0.2, baseDate: Self.baseDate, with: client)
        try await collector.wait(timeout: 30, "every device's frame 25") { PresenceTally($0, baseDate: Self.baseDate).allReached(25, of: devices) }
        let faultAt = PresenceTally(collector.messages, baseDate: Self.baseDate).outputs.map(\.frame).max() ?? 0
        var alive = gateways
        switch fault {
        case .kill:
            gateways[1].signal(SIGKILL)
            _ = try await gateways[1].waitForExit(timeout: 10)
            alive.remove(at: 1)
        case .killAndRestart:
            let killed = gateways[1]
            killed.signal(SIGKILL)
            _ = try await killed.waitForExit(timeout: 10)
            // The fault: a supervisor starting it 2 s later with its disk and its client id.
            try await Task.sleep(for: .seconds(2))
            gateways[1] = try GatewayProcess(
                broker: broker, arguments: ClusterHarness.arguments("gw-b", store: store) + ["--set", "mqtt.clientId=\(killed.clientID)"],
                dataDirectory: killed.dataDirectory)
            alive = gateways
        case .freeze:
            gateways[1].signal(SIGSTOP)
            // The fault's length: four lease times, the others adopt it meanwhile.
            try await Task.sleep(for: .seconds(12))
            gateways[1].signal(SIGCONT)
        case .postgresRestart:
            try await server?.stop()
            try await server?.restart()
        case .brokerRestart:
            try await broker.restartedGracefully()
        case .join:
            let joiner = try GatewayProcess(broker: broker, arguments: ClusterHarness.arguments("gw-d", store: store))
            gateways.append(joiner)
            alive = gateways
        case .drain:
            gateways[1].signal(SIGTERM)
            #expect(try await gateways[1].waitForExit(timeout: 40) == 0, "gw-b drained: \(gateways[1].log.suffix(2000))")
            alive.remove(at: 1)
        }
        try await streaming.value
        #expect(await client.flush(timeout: 30))
        let live = alive.compactMap(\.instance)
        do {
            try await collector.wait(timeout: 60, "every device's last frame") { PresenceTally($0, baseDate: Self.baseDate).allReached(Self.rounds - 1, of: devices) }
            // Every instance holding its share again (a restarted or thawed one by hand-over).
            try await ClusterHarness.waitForOwnership(collector, alive, timeout: 40, "the instances holding their shares") { messages in
                live.allSatisfy { ClusterHarness.metric(messages, $0, "gateway_cluster_partitions", labels: ["state": "held"]) == Double(ClusterHarness.share(of: $0, among: live)) }
            }
        } catch {
            Issue.record("\(ClusterHarness.ownershipReport(collector.messages, alive))")
            throw error
        }
        try await ClusterHarness.stop(alive, collector: collector)

        let tally = PresenceTally(collector.messages, baseDate: Self.baseDate)
        let missing = tally.framesWithoutOutput(devices, rounds: Self.rounds)
        let repeated = tally.repeated
        let late = tally.outOfDateOrder
        let stale = try await ClusterHarness.staleRetainedConnections(broker, devices: devices, newest: Self.rounds - 1, baseDate: Self.baseDate)
        let adoptions = alive.compactMap(\.instance).map { ClusterHarness.metric(collector.messages, $0, "gateway_cluster_adoptions_total") ?? 0 }.reduce(0, +)
        // A frame without output only where its output was recorded in the ledger by a run that
        // died (or froze) before publishing it: the successor's copy is the ledger's duplicate
        // (docs/scale-out.md, Not done yet: recorded but never published).
        let unpublished = try await ClusterFaultTests.recordedButNotPublished(store: store, collector.messages, suffix: "/connection")
        let unexplained = missing.filter { device, frames in frames.count > unpublished[device] ?? 0 }
        #expect(unexplained.isEmpty, "frames without output that no run recorded (device, frames): \(unexplained); recorded and never published: \(unpublished)")
        // None twice, but, across a broker restart, the same bytes again from the same publisher:
        // a QoS 1 output the broker received and whose PUBACK its stop swallowed, sent again
        // once reconnected (MQTT's at least once; consumers drop it by its eventId).
        let resent = repeated.filter { _, copies in
            fault == .brokerRestart && copies.count == 2 && copies[0].payload == copies[1].payload && copies[0].publisher == copies[1].publisher
        }
        #expect(repeated.count == resent.count, "outputs twice: \(repeated.filter { resent[$0.key] == nil }.mapValues { $0.map(\.publisher) })")
        // Out of date order only across a hand-over's cut: the old holder's last output, recorded
        // before the successor accepted, reaching the broker after the successor's first
        // (docs/scale-out.md, Not done yet); never one publisher's outputs out of order.
        let ownDisorder = late.filter { late in late.overtakenBy.contains { $0.publisher == late.output.publisher } }.map(\.output)
        #expect(ownDisorder.isEmpty, "one publisher's outputs out of date order: \(ownDisorder.map { "\($0.device)#\($0.frame) by \($0.publisher)" })")
        #expect(stale.isEmpty, "retained connections not at the newest frame (device: frame read): \(stale)")
        for output in late.prefix(3).map(\.output) {
            let around = tally.outputs.filter { $0.device == output.device && abs($0.frame - output.frame) <= 3 }.map { "\($0.frame) by \($0.publisher)" }
            print("presence through \(fault): \(output.device) around its late frame \(output.frame), in arrival order: \(around)")
        }
        print(
            "presence through \(fault): \(devices.count) devices (\(victims.count) of gw-b), \(devices.count * Self.rounds) frames, fault at frame \(faultAt); adoptions \(adoptions); "
                + "frames without output \(missing.map(\.1.count).reduce(0, +)) (recorded and never published \(unpublished.values.reduce(0, +))), twice \(repeated.count) (resent across the broker's restart \(resent.count)), "
                + "out of date order \(late.count) (\(late.map { "\($0.output.device)#\($0.output.frame) by \($0.output.publisher)" })), stale retained \(stale.count)")
        await client.shutdown()
        await observer.shutdown()
    }
}
