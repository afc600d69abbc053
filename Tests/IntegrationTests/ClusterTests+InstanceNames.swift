import BrokerTestSupport
import Foundation
import MQTTTransport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// ClusterTests on instance names: one live run per name, enforced by the store.
extension ClusterTests {
    @Test(
        "a second run under a live instance name is refused (exit 78, naming the live run) and knocks none of its sessions off; a frozen run replaced under its name stops once thawed (exit 78) and takes nothing back; every swing published once, in each watch's order"
    )
    func oneLiveRunPerName() async throws {
        var run = try await ClusterHarness.Run.start(swings: 8)
        let (collector, fleet) = (run.collector, run.fleet)
        let victims = run.watches(of: "gw-b", among: run.names)
        let (clockStart, playing) = run.play()
        try await run.waitForSwings(of: Set(fleet.devices.map(\.id)), 20, "20 swings")
        let holder = run.gateways[1]
        let holderRun = try #require(Self.runID(in: holder.log), "gw-b logged no run id:\n\(holder.log)")
        let connections = { (messages: [MQTTMessage], connection: String) in
            ClusterHarness.metric(messages, "gw-b", "gateway_mqtt_connections_total", labels: ["connection": connection]) ?? -1
        }
        #expect(connections(collector.messages, "subscriber") == 1 && connections(collector.messages, "publisher") == 1)

        // A second run of gw-b on another disk, with its client id: refused at its heartbeats,
        // it never connects to the broker.
        let second = try GatewayProcess(
            broker: run.broker, arguments: ClusterHarness.arguments("gw-b", store: run.store) + ["--set", "mqtt.clientId=\(holder.clientID)"])
        #expect(try await second.waitForExit(timeout: 30) == 78, "log:\n\(second.log)")
        #expect(second.log.contains("instance name gw-b is held by another live run (run \(holderRun)"), "log:\n\(second.log)")
        // gw-b's metrics published after the refusal: still one connection each, its share held.
        let afterRefusal = collector.messages.count
        try await collector.wait(timeout: 10, "gw-b's metrics after the refusal") { messages in
            ClusterHarness.metric(Array(messages.dropFirst(afterRefusal)), "gw-b", "gateway_mqtt_connections_total", labels: ["connection": "subscriber"]) != nil
        }
        let later = Array(collector.messages.dropFirst(afterRefusal))
        #expect(connections(later, "subscriber") == 1 && connections(later, "publisher") == 1, "the refused run knocked a session of gw-b off")
        #expect(
            ClusterHarness.metric(later, "gw-b", "gateway_cluster_partitions", labels: ["state": "held"])
                == Double(ClusterHarness.share(of: "gw-b", among: run.names)))

        // gw-b frozen past its lease; a replacement started on another disk under its name and
        // client id registers once gw-b's row expired (or once a survivor's stand-in left).
        holder.signal(SIGSTOP)
        defer { holder.signal(SIGCONT) }  // never left stopped, whatever fails
        let frozenAt = (ContinuousClock.now - clockStart) / .seconds(1)
        let replacement = try GatewayProcess(
            broker: run.broker, arguments: ClusterHarness.arguments("gw-b", store: run.store) + ["--set", "mqtt.clientId=\(holder.clientID)"])
        run.gateways[1] = replacement
        let afterFreeze = collector.messages.count
        try await run.waitForOwnership(timeout: 40, "the replacement holding gw-b's share") { messages in
            ClusterHarness.metric(Array(messages.dropFirst(afterFreeze)), "gw-b", "gateway_cluster_partitions", labels: ["state": "held"])
                == Double(ClusterHarness.share(of: "gw-b", among: ["gw-a", "gw-b", "gw-c"]))
        }
        let replacedAt = (ContinuousClock.now - clockStart) / .seconds(1)
        let replacementRun = try #require(Self.runID(in: replacement.log))
        // Thawed: refused at its next heartbeat, it stops.
        holder.signal(SIGCONT)
        #expect(try await holder.waitForExit(timeout: 40) == 78, "log:\n\(holder.log.split(separator: "\n").suffix(40).joined(separator: "\n"))")
        #expect(holder.log.contains("this run was replaced: instance name gw-b is held by another live run (run \(replacementRun)"))

        let window = (frozenAt - 3)...(replacedAt + 0.5)
        let atRisk = try await run.endAndWaitForAll(but: victims, startingIn: window, playing)
        try await ClusterHarness.stop(run.gateways, collector: collector)
        let (tally, lostInWindow) = run.expectOnceInOrder(victims: victims, atRisk: atRisk, "frozen at \(frozenAt) s, replaced at \(replacedAt) s")
        let adoptions = ["gw-a", "gw-c"].map { ClusterHarness.metric(collector.messages, $0, "gateway_cluster_adoptions_total") ?? 0 }.reduce(0, +)
        print(
            "cluster one run per name: a second run refused; gw-b frozen at \(frozenAt) s, its replacement holding the share at \(replacedAt) s; adoptions \(adoptions); \(lostInWindow) swings lost in the window \(window); \(tally)"
        )
        await run.shutdown()
    }

    /// The run id a clustered gateway logs at start ("this is run 1a2b3c4d of instance …").
    private static func runID(in log: String) -> String? {
        guard let range = log.range(of: "this is run ") else { return nil }
        return log[range.upperBound...].split(separator: " ").first.map(String.init)
    }
}
