import Foundation
import BrokerTestSupport
import MQTTTransport
import Testing

/// ClusterFaultTests with the broker away from one instance: it reaches mosquitto through a
/// loopback proxy the test cuts for longer than its broker session lasts, while it still
/// reaches PostgreSQL. Every frame sent is matched to its published output. The same suite
/// (its tests one at a time), for the reason given in ClusterFaultTests+StoreOutages.swift.
extension ClusterFaultTests {
    @Test("one of two instances cut from the broker for 12 s, longer than its broker session, PostgreSQL reachable: it withholds its renewals, is adopted, and its stand-in serves its devices from its session; back on the broker it gets its share back; every frame has its output, none twice")
    func brokerCutOff() async throws {
        let broker = try await TestBroker.started()
        let store = try await ClusterHarness.makeStore()
        // gw-a reaches the broker through a proxy on loopback, gw-b directly; both reach PostgreSQL.
        let proxy = try TCPProxy(upstreamPort: broker.port)
        let (observer, collector) = try await TestClients.observer(broker, subscribedTo: ["gateway/+/connection", "gateway/instances/+/metrics", "gateway/status"])
        let names = ["gw-a", "gw-b"]
        let gateways = [
            try GatewayProcess(broker: broker, arguments: ClusterHarness.arguments("gw-a", store: store) + ["--broker", proxy.url]),
            try GatewayProcess(broker: broker, arguments: ClusterHarness.arguments("gw-b", store: store)),
        ]
        try await ClusterHarness.waitLive(collector, names, count: 2)
        let devices = (0..<12).map { "bc-watch-\($0)" }
        let cutOff = Set(devices.filter { ClusterHarness.owner(of: $0, among: names) == "gw-a" })
        #expect(!cutOff.isEmpty && cutOff.count < devices.count)
        let client = try await TestClients.connected(try TestClients.configuration(broker))
        for device in devices { try await client.send(PerDeviceSubscriptionTests.hello(device)) }

        // Each device's status alternates 5 times a second, each with its own date.
        let baseDate = 1_800_000_000
        let rounds = 200
        let streaming = ClusterHarness.playStatus(devices, rounds: rounds, interval: 0.2, baseDate: baseDate, with: client)
        @Sendable func outputs(_ messages: [MQTTMessage]) -> [(device: String, date: Int, instance: String, payload: [UInt8])] {
            messages.compactMap { message in
                guard message.topic.hasSuffix("/connection"), let object = try? JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any],
                    let date = object["date"] as? Double, let instance = message.properties.userProperties.first(where: { $0.name == "instance" })?.value
                else { return nil }
                let standIn = message.properties.userProperties.first(where: { $0.name == "stand-in" }).map { "@\($0.value)" } ?? ""
                return (String(message.topic.split(separator: "/")[1]), Int(date) - baseDate, instance + standIn, message.payload)
            }
        }
        try await collector.wait(timeout: 30, "gw-a publishing its devices' connections") { messages in outputs(messages).filter { $0.instance == "gw-a" }.count >= 10 * cutOff.count }
        let cutAt = outputs(collector.messages).map(\.date).max() ?? 0
        // 12 s: past gw-a's broker session (2.5 × 3 + 2 × 0.5 = 9 s), which the broker would end
        // with everything it queued for gw-a's devices if nobody resumed it.
        proxy.cut(refusingFor: 12)
        // Half a lease time without the broker, gw-a stops renewing; a lease time later gw-b
        // adopts it, and the stand-in resumes gw-a's session and hands its partitions to gw-b.
        do {
            try await collector.wait(timeout: 20, "gw-b publishing gw-a's devices") { messages in
                outputs(messages).contains { cutOff.contains($0.device) && $0.instance == "gw-b" }
            }
        } catch {
            for (name, gateway) in zip(names, gateways) { print("cluster broker cut: \(name) log:\n\(gateway.log.split(separator: "\n").suffix(60).joined(separator: "\n"))") }
            throw error
        }
        // Back on the broker, gw-a registers again once the stand-in left, and gets its share back.
        try await ClusterHarness.waitForOwnership(collector, gateways, timeout: 40, "gw-a back with its share") { messages in
            ClusterHarness.metric(messages, "gw-a", "gateway_cluster_partitions", labels: ["state": "held"]) == Double(ClusterHarness.share(of: "gw-a", among: names))
        }
        try await streaming.value
        #expect(await client.flush(timeout: 30))
        try await collector.wait(timeout: 30, "every device's last frame") { messages in
            let last = Set(outputs(messages).filter { $0.date == rounds - 1 }.map(\.device))
            return devices.allSatisfy(last.contains)
        }
        try await ClusterHarness.stop(gateways, collector: collector)
        let seen = outputs(collector.messages)

        let adoptions = ClusterHarness.metric(collector.messages, "gw-b", "gateway_cluster_adoptions_total") ?? 0
        #expect(adoptions == 1, "gw-a adopted once: \(adoptions)")
        // Every frame has its output: gw-a's devices' frames of the cut waited in gw-a's session
        // until the stand-in resumed it. The stand-in starts from the state gw-a stored, so its
        // first frame of a device, if it repeats that stored status, publishes nothing: at most
        // one frame a device, after the cut.
        let missing = ClusterHarness.framesWithoutOutput(devices, rounds: rounds, seen: seen.map { ($0.device, $0.date) })
        #expect(
            missing.allSatisfy { device, absent in cutOff.contains(device) && absent.count <= 1 && absent.allSatisfy { $0 > cutAt } },
            "frames without output (device, frame numbers): \(missing)")
        // None twice, but the same bytes again from the same run: gw-a's publisher sending again,
        // once reconnected, a QoS 1 output whose PUBACK the cut swallowed (MQTT's at least once;
        // consumers drop it by its eventId, docs/wire-contract.md). The stand-in announces no
        // retained state again (the broker kept it with gw-a's session).
        let copies = Dictionary(grouping: seen, by: { "\($0.device)#\($0.date)" }).filter { $0.value.count > 1 }
        let resent = copies.values.filter { group in Set(group.map(\.payload)).count == 1 && group.count == 2 && group.allSatisfy { $0.instance == "gw-a" } }
        #expect(copies.count == resent.count, "outputs twice: \(copies.filter { $0.value.count != 2 || !$0.value.allSatisfy { $0.instance == "gw-a" } }.mapValues { $0.map(\.instance) })")
        // gw-a resends only outputs it had published before the cut (its subscriber was cut
        // too, so it derived nothing after; the same 5 frames of slack as below for those in
        // flight to the observer). How many were in flight at the cut is the load's doing (6 to
        // 15 seen), not a rule, so it is not bounded here.
        #expect(
            resent.allSatisfy { cutOff.contains($0[0].device) && $0[0].date <= cutAt + 5 },
            "gw-a resent outputs of frames after the cut: \(resent.map { "\($0[0].device)#\($0[0].date)" })")
        // Every distinct output in date order per device (a repeated one counted where it came
        // first), but for outputs gw-a recorded and handed to its publisher before the cut, which
        // its publisher sends once reconnected, after the successors' newer ones
        // (docs/scale-out.md, *Not done yet*): those come from gw-a itself, of frames from just before
        // the cut, and nothing else comes out of order.
        var late: [(device: String, date: Int, instance: String)] = []
        for device in devices {
            var firstSeen = Set<Int>()
            var newest = Int.min
            for output in seen where output.device == device && firstSeen.insert(output.date).inserted {
                if output.date < newest { late.append((device, output.date, output.instance)) }
                newest = max(newest, output.date)
            }
        }
        #expect(late.allSatisfy { $0.instance == "gw-a" && cutOff.contains($0.device) && $0.date <= cutAt + 5 }, "outputs out of date order: \(late)")
        let outOfOrder = late.count
        // A late reader finds every device's retained connection at its newest frame.
        let stale = try await ClusterHarness.staleRetainedConnections(broker, devices: devices, newest: rounds - 1, baseDate: baseDate)
        #expect(stale.isEmpty, "retained connections not at the newest frame (device: frame read): \(stale)")
        print("cluster broker cut: gw-a (\(cutOff.count) devices) cut from the broker for 12 s from frame \(cutAt); adopted \(adoptions) time(s); frames without output \(missing); repeated \(copies.count) (\(resent.count) resent by gw-a), out of date order \(outOfOrder); stale retained \(stale.count)")
        await client.shutdown()
        await observer.shutdown()
        proxy.stop()
    }
}
