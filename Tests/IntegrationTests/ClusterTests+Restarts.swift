import BrokerTestSupport
import Foundation
import MQTTTransport
import PostgresTestSupport
import Testing

/// ClusterTests with PostgreSQL or the broker restarted under three instances while the watches
/// play: nothing lost, nothing twice, every watch's swings in order. In this suite rather than
/// ClusterFaultTests: they run after its other tests, beside the fault suite, whose tests already
/// take most of the 10 minutes the test command gives the multi-instance suites' process.
extension ClusterTests {
    @Test(
        "PostgreSQL restarted under three instances while devices stream (stopped at once, like a crash, and started again on its port, at once or after 4 s, longer than the lease time): the instances keep or take back their shares, every swing is published once, in each watch's order, none lost",
        arguments: [0.0, 4.0])
    func postgresRestarted(down seconds: Double) async throws {
        // A server of the test's own: stopping WG_TEST_POSTGRES_URL's would fail the suites beside it.
        let server = try await PrivatePostgres.start()
        defer { server.remove() }
        let run = try await ClusterHarness.Run.start(swings: 8, server: server.url)
        let (collector, fleet) = (run.collector, run.fleet)
        let (clockStart, playing) = run.play()
        try await run.waitForSwings(of: Set(fleet.devices.map(\.id)), 30, "30 swings")
        try await server.stop()
        let stoppedAt = (ContinuousClock.now - clockStart) / .seconds(1)
        if seconds > 0 {
            // Down longer than the lease time: every instance past its deadline, its outputs waiting.
            try await collector.wait(timeout: 10, "every instance past its deadline") { messages in
                run.names.allSatisfy { ClusterHarness.metric(messages, $0, "gateway_cluster_lease_past_deadline") == 1 }
            }
            // The rest of the fault's length (a server down for `seconds`).
            let remaining = seconds - (ContinuousClock.now - clockStart) / .seconds(1) + stoppedAt
            if remaining > 0 { try await Task.sleep(for: .seconds(remaining)) }
        }
        try await server.restart()
        let restartedAt = (ContinuousClock.now - clockStart) / .seconds(1)
        // Every connection was cut and every transaction in flight aborted: each instance's
        // pool connects again; leases that ran out meanwhile are taken again. Metrics published
        // after the restart, not before the stop.
        let metricsBefore = collector.messages.count
        try await run.waitForOwnership(timeout: 40, "every instance holding its share again, none past its deadline") { messages in
            let after = Array(messages.dropFirst(metricsBefore))
            return run.names.allSatisfy {
                ClusterHarness.metric(after, $0, "gateway_cluster_partitions", labels: ["state": "held"]) == Double(ClusterHarness.share(of: $0, among: run.names))
                    && ClusterHarness.metric(after, $0, "gateway_cluster_lease_past_deadline") == 0
                    && (ClusterHarness.metric(after, $0, "gateway_cluster_heartbeats_failing") ?? 1) == 0
            }
        }
        let settledAt = (ContinuousClock.now - clockStart) / .seconds(1)
        do {
            try await run.endAndWaitForAll(playing)
        } catch {
            let tally = fleet.tally(collector.messages)
            let missing = fleet.devices.flatMap { device in
                device.expected.indices.filter { tally.count(device.id, $0) == 0 }.map { "\(device.id)#\($0)@\(device.sessionTime(device.expected[$0]))" }
            }
            Issue.record("stopped at \(stoppedAt) s, started at \(restartedAt) s, settled at \(settledAt) s; missing \(missing)\n\(run.ownershipReport())")
            throw error
        }
        try await ClusterHarness.stop(run.gateways, collector: collector)

        let tally = fleet.tally(collector.messages)
        #expect(tally.duplicates == 0, "\(tally)")
        #expect(tally.unmatched.isEmpty, "\(tally)")
        let outOfOrder = fleet.outOfOrder(collector.messages)
        #expect(outOfOrder.isEmpty, "swings published out of their session order: \(outOfOrder)")
        let adoptions = run.names.map { ClusterHarness.metric(collector.messages, $0, "gateway_cluster_adoptions_total") ?? 0 }.reduce(0, +)
        let pastDeadline = run.names.filter { name in
            collector.messages.contains { ClusterHarness.metric([$0], name, "gateway_cluster_lease_past_deadline") == 1 }
        }
        print("cluster PostgreSQL restart (down \(seconds) s): stopped at \(stoppedAt) s, started again at \(restartedAt) s, every share held at \(settledAt) s; instances past their deadline meanwhile \(pastDeadline); adoptions \(adoptions); \(tally)")
        await run.shutdown()
    }

    @Test("the broker restarted under three instances while devices stream (SIGTERM, its sessions and queued messages kept on disk, started again on its port): the instances resume their sessions, nothing moves, every swing published once, in each watch's order, none lost")
    func brokerRestarted() async throws {
        let run = try await ClusterHarness.Run.start(swings: 8, persistentBroker: true)
        let (collector, fleet) = (run.collector, run.fleet)
        let (clockStart, playing) = run.play()
        try await run.waitForSwings(of: Set(fleet.devices.map(\.id)), 30, "30 swings")
        let adoptionsBefore = run.names.map { ClusterHarness.metric(collector.messages, $0, "gateway_cluster_adoptions_total") ?? 0 }.reduce(0, +)
        try await run.broker.restartedGracefully()
        let restartedAt = (ContinuousClock.now - clockStart) / .seconds(1)
        do {
            try await run.endAndWaitForAll(playing)
        } catch {
            let tally = fleet.tally(collector.messages)
            let missing = fleet.devices.flatMap { device in
                device.expected.indices.filter { tally.count(device.id, $0) == 0 }.map { "\(device.id)#\($0)@\(device.sessionTime(device.expected[$0]))" }
            }
            Issue.record("broker restarted at \(restartedAt) s; missing \(missing)\n\(run.ownershipReport())")
            throw error
        }
        // Every instance connected again (the restart reached them) and holds its share.
        try await collector.wait(timeout: 10, "every instance's subscriber connected twice, holding its share") { messages in
            run.names.allSatisfy {
                (ClusterHarness.metric(messages, $0, "gateway_mqtt_connections_total", labels: ["connection": "subscriber"]) ?? 0) >= 2
                    && ClusterHarness.metric(messages, $0, "gateway_cluster_partitions", labels: ["state": "held"]) == Double(ClusterHarness.share(of: $0, among: run.names))
            }
        }
        try await ClusterHarness.stop(run.gateways, collector: collector)

        let messages = collector.messages
        let tally = fleet.tally(messages)
        #expect(tally.duplicates == 0, "\(tally)")
        #expect(tally.unmatched.isEmpty, "\(tally)")
        let outOfOrder = fleet.outOfOrder(messages)
        #expect(outOfOrder.isEmpty, "swings published out of their session order: \(outOfOrder)")
        let adoptions = run.names.map { ClusterHarness.metric(messages, $0, "gateway_cluster_adoptions_total") ?? 0 }.reduce(0, +) - adoptionsBefore
        #expect(adoptions == 0, "a restart shorter than a lease time adopts nobody")
        print("cluster broker restart: restarted at \(restartedAt) s; adoptions \(adoptions); \(tally)")
        await run.shutdown()
    }

    @Test("PostgreSQL down past every lease's deadline and, meanwhile, the broker restarted without persistence: every subscriber reconnects without waiting for the store (none is adopted, so none holds its reconnect), nobody is adopted when the store is back, and every swing but those the broker lost in its restart is published once, in order")
    func storeDownThenBrokerRestart() async throws {
        let server = try await PrivatePostgres.start()
        defer { server.remove() }
        let run = try await ClusterHarness.Run.start(swings: 8, server: server.url)
        let (collector, fleet) = (run.collector, run.fleet)
        let (clockStart, playing) = run.play()
        try await run.waitForSwings(of: Set(fleet.devices.map(\.id)), 30, "30 swings")
        try await server.stop()
        let stoppedAt = (ContinuousClock.now - clockStart) / .seconds(1)
        try await collector.wait(timeout: 10, "every instance past its deadline") { messages in
            run.names.allSatisfy { ClusterHarness.metric(messages, $0, "gateway_cluster_lease_past_deadline") == 1 }
        }
        // SIGKILL, no persistence: the broker forgets every session and what they queued.
        try await run.broker.restarted()
        let brokerBackAt = (ContinuousClock.now - clockStart) / .seconds(1)
        let before = collector.messages.count
        // The store still away: each subscriber connects again all the same (it holds its
        // reconnect only when adopted), so the broker has somewhere to queue its devices' frames.
        do {
            // Within a second or so, and well within the acknowledgement wait's bound (half the
            // keepalive, 15 s): a subscriber waiting for outputs when the broker died learns of
            // it from its publisher's lost connection (docs/scale-out.md, Acknowledged after
            // publishing); before, one in about three runs came back only at that bound.
            try await collector.wait(timeout: 8, "every instance's subscriber connected again within 8 s, while the store is away") { messages in
                let after = Array(messages.dropFirst(before))
                return run.names.allSatisfy {
                    ClusterHarness.metric(after, $0, "gateway_mqtt_connected", labels: ["connection": "subscriber"]) == 1
                        && (ClusterHarness.metric(after, $0, "gateway_mqtt_connections_total", labels: ["connection": "subscriber"]) ?? 0) >= 2
                        && ClusterHarness.metric(after, $0, "gateway_cluster_lease_past_deadline") == 1
                }
            }
        } catch {
            let after = Array(collector.messages.dropFirst(before))
            let states = run.names.map { name in
                let value = { (metric: String, labels: [String: String]) in ClusterHarness.metric(after, name, metric, labels: labels).map { "\($0)" } ?? "-" }
                return "\(name): connected \(value("gateway_mqtt_connected", ["connection": "subscriber"])), connections \(value("gateway_mqtt_connections_total", ["connection": "subscriber"])), past deadline \(value("gateway_cluster_lease_past_deadline", [:]))"
            }
            let logs = run.gateways.map { gateway in gateway.log.split(separator: "\n").suffix(40).joined(separator: "\n") }
            Issue.record("after the broker's restart at \(brokerBackAt) s: \(states)\n\(logs.joined(separator: "\n---\n"))")
            throw error
        }
        let subscribersBackAt = (ContinuousClock.now - clockStart) / .seconds(1)
        if subscribersBackAt - brokerBackAt > 3 {
            // Slower than usual, though within the bound: what each subscriber's connection did.
            let lines = run.gateways.map { gateway in
                gateway.log.split(separator: "\n").filter { $0.contains("MQTT") || $0.contains("acknowledg") || $0.contains("subscri") }.suffix(30)
                    .joined(separator: "\n")
            }
            print("cluster store down, broker restarted: a subscriber came back \(subscribersBackAt - brokerBackAt) s after the broker; connection logs:\n\(lines.joined(separator: "\n---\n"))")
        }
        try await server.restart()
        let storeBackAt = (ContinuousClock.now - clockStart) / .seconds(1)
        let afterStore = collector.messages.count
        try await run.waitForOwnership(timeout: 40, "every instance holding its share again, none past its deadline") { messages in
            let after = Array(messages.dropFirst(afterStore))
            return run.names.allSatisfy {
                ClusterHarness.metric(after, $0, "gateway_cluster_partitions", labels: ["state": "held"]) == Double(ClusterHarness.share(of: $0, among: run.names))
                    && ClusterHarness.metric(after, $0, "gateway_cluster_lease_past_deadline") == 0
            }
        }
        // At risk: swings whose frames the broker held when it was killed (sent from the store's
        // stop, whose frames were not acknowledged for want of published outputs, to the
        // subscribers' return). Everything sent after that reached a subscriber.
        let window = (stoppedAt - 3)...(subscribersBackAt + 1)
        let atRisk = try await run.endAndWaitForAll(but: Set(fleet.devices.map(\.id)), startingIn: window, playing)
        try await ClusterHarness.stop(run.gateways, collector: collector)

        let messages = collector.messages
        let tally = fleet.tally(messages)
        #expect(tally.duplicates == 0, "\(tally)")
        #expect(tally.unmatched.isEmpty, "\(tally)")
        let lost = run.lostInWindow(tally, atRisk: atRisk, "store stopped at \(stoppedAt) s, broker restarted at \(brokerBackAt) s, subscribers back at \(subscribersBackAt) s")
        let outOfOrder = fleet.outOfOrder(messages)
        #expect(outOfOrder.isEmpty, "swings published out of their session order: \(outOfOrder)")
        let adoptions = run.names.map { ClusterHarness.metric(messages, $0, "gateway_cluster_adoptions_total") ?? 0 }.reduce(0, +)
        #expect(adoptions == 0, "nobody died: nobody is adopted")
        print("cluster store down, broker restarted: store stopped at \(stoppedAt) s, broker back at \(brokerBackAt) s, every subscriber back at \(subscribersBackAt) s, store back at \(storeBackAt) s; \(lost) swings lost in \(window); adoptions \(adoptions); \(tally)")
        await run.shutdown()
    }
}
