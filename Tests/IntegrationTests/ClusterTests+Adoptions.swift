import BrokerTestSupport
import Foundation
import MQTTTransport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// ClusterTests on adoptions that go wrong: the adopter dies while its stand-in runs.
extension ClusterTests {
    @Test(
        "SIGKILL of an adopter while its stand-in runs: the last instance adopts the adopter and, once the stand-in's adoption ran out, the dead name again (its stand-in registered or not yet); its new stand-in resumes that name's session: every swing begun outside the kills' window published once, in each watch's order"
    )
    func adopterKilledWhileItsStandInRuns() async throws {
        let run = try await ClusterHarness.Run.start(swings: 8)
        let (collector, fleet, gateways) = (run.collector, run.fleet, run.gateways)
        let (clockStart, playing) = run.play()
        try await run.waitForSwings(of: Set(fleet.devices.map(\.id)), 20, "20 swings")
        gateways[2].signal(SIGKILL)
        let firstKillAt = (ContinuousClock.now - clockStart) / .seconds(1)
        // Whoever adopts gw-c (it logs the adoption as it starts the stand-in) is killed at once,
        // stand-in and all.
        let adoption = "adoption: gw-c (run "
        let deadline = ContinuousClock.now + .seconds(30)
        var adopterIndex: Int?
        while adopterIndex == nil, ContinuousClock.now < deadline {
            adopterIndex = [0, 1].first { gateways[$0].log.contains(adoption) }
            if adopterIndex == nil { try await Task.sleep(for: .milliseconds(20)) }
        }
        let adopter = try #require(adopterIndex, "nobody adopted gw-c within 30 s\n\(run.ownershipReport())")
        gateways[adopter].signal(SIGKILL)
        let secondKillAt = (ContinuousClock.now - clockStart) / .seconds(1)
        let survivor = gateways[1 - adopter]
        let (adopterName, survivorName) = (run.names[adopter], run.names[1 - adopter])
        let victims = run.watches(of: "gw-c", among: run.names).union(run.watches(of: adopterName, among: run.names))
        // The survivor ends up holding everything (through the stand-ins' hand-overs).
        let afterKills = collector.messages.count
        try await run.waitForOwnership(timeout: 60, "\(survivorName) holding every partition") { messages in
            ClusterHarness.metric(Array(messages.dropFirst(afterKills)), survivorName, "gateway_cluster_partitions", labels: ["state": "held"]) == 1_024
        }
        let settledAt = (ContinuousClock.now - clockStart) / .seconds(1)
        let window = (firstKillAt - 3)...(secondKillAt + 0.5)
        let atRisk = try await run.endAndWaitForAll(but: victims, startingIn: window, playing)
        try await ClusterHarness.stop([survivor], collector: collector)

        let (tally, lostInWindow) = run.expectOnceInOrder(
            victims: victims, atRisk: atRisk, "gw-c killed at \(firstKillAt) s, its adopter \(adopterName) at \(secondKillAt) s")
        // The survivor adopted the adopter and gw-c again (the dead stand-in's row), each once.
        #expect(survivor.log.contains(adoption), "gw-c was not adopted again after its stand-in died:\n\(run.ownershipReport())")
        #expect(survivor.log.contains("adoption: \(adopterName) (run "))
        let adoptions = ClusterHarness.metric(collector.messages, survivorName, "gateway_cluster_adoptions_total") ?? 0
        #expect(adoptions == 2, "\(survivorName) adopted \(adoptions) runs")
        print(
            "cluster adopter killed: gw-c killed at \(firstKillAt) s, its adopter \(adopterName) at \(secondKillAt) s; \(survivorName) held everything at \(settledAt) s; adoptions \(adoptions); \(lostInWindow) swings lost in the window \(window); \(tally)"
        )
        await run.shutdown()
    }
}
