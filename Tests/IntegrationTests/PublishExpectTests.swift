import BrokerTestSupport
import Foundation
import TelemetryGateway
import Testing

/// `wearable-sim publish --expect` against real gateways: it passes when the gateway derives
/// the scenario's ground truth and fails, with a diff, when the gateway derives something else.
@Suite("wearable-sim publish --expect through a real broker")
struct PublishExpectTests {
    static func publishDive(to run: GatewayRun) throws -> SimulatorProcess {
        try SimulatorProcess(
            ["publish", "--broker", run.broker.url, "--scenario", "dive", "--speed", "20", "--expect", "--expect-timeout", "60", "--log-level", "warning"],
            directory: run.broker.directory)
    }

    @Test("the shipped registry (6 m limit): the dive's depth states match, exit 0")
    func matchingDive() async throws {
        let broker = try await TestBroker.started()
        let run = try await GatewayRun.start(broker) { configuration in
            configuration.registryFile = TestBroker.repositoryRoot.appendingPathComponent("config/devices.yml").path
        }
        let publisher = try Self.publishDive(to: run)
        try await publisher.waitForSuccess()
        #expect(publisher.output.contains("expectation met: the gateway's output matches the ground truth"), "\(publisher.output)")
        try await run.stop()
    }

    @Test("an open registry (40 m limit): no approachingMaxDepth, exit 1 with a diff")
    func differingDive() async throws {
        let broker = try await TestBroker.started()
        let run = try await GatewayRun.start(broker)
        let publisher = try Self.publishDive(to: run)
        #expect(try await publisher.waitForExit() == 1)
        let output = publisher.output
        #expect(output.first?.hasPrefix("expectation failed:") == true, "\(output)")
        #expect(output.contains("- 4 approachingMaxDepth"), "\(output)")
        #expect(output.contains("  1 notSubmerged"), "\(output)")
        try await run.stop()
    }
}
