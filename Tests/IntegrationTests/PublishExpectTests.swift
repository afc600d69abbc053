import BrokerTestSupport
import Foundation
import MQTTTransport
import TelemetryGateway
import Testing

/// `wearable-sim publish --expect` against real gateways: it passes when the gateway derives
/// the scenario's ground truth and fails, with a diff, when the gateway derives something else.
@Suite("wearable-sim publish --expect through a real broker")
struct PublishExpectTests {
    static func publishDive(to broker: TestBroker, logLevel: String = "warning", environment: [String: String] = [:]) throws -> SimulatorProcess {
        try SimulatorProcess(
            ["publish", "--broker", broker.url, "--scenario", "dive", "--speed", "20", "--expect", "--expect-timeout", "60", "--log-level", logLevel],
            directory: broker.directory, environment: environment)
    }

    static func shippedRegistry(_ configuration: inout GatewayConfiguration) {
        configuration.registryFile = TestBroker.repositoryRoot.appendingPathComponent("config/devices.yml").path
    }

    @Test("the shipped registry (6 m limit): the dive's depth states match, exit 0")
    func matchingDive() async throws {
        let broker = try await TestBroker.started()
        let run = try await GatewayRun.start(broker, configure: Self.shippedRegistry)
        let publisher = try Self.publishDive(to: broker)
        try await publisher.waitForSuccess()
        #expect(publisher.output.contains("expectation met: the gateway's output matches the ground truth"), "\(publisher.output)")
        try await run.stop()
    }

    @Test("an open registry (40 m limit): no approachingMaxDepth, exit 1 with a diff")
    func differingDive() async throws {
        let broker = try await TestBroker.started()
        let run = try await GatewayRun.start(broker)
        let publisher = try Self.publishDive(to: broker)
        #expect(try await publisher.waitForExit() == 1)
        let output = publisher.output
        #expect(output.first?.hasPrefix("expectation failed:") == true, "\(output)")
        #expect(output.contains("- 4 approachingMaxDepth"), "\(output)")
        #expect(output.contains("  1 notSubmerged"), "\(output)")
        try await run.stop()
    }

    @Test("the wall clock stepped an hour ahead while --expect waits for the gateway: it keeps waiting, then passes")
    func wallClockStep() async throws {
        let broker = try await TestBroker.started()
        let clock = try SteppedWallClock(directory: broker.directory)
        // No periodic metrics: the gateway publishes them only once more when it stops, so
        // --expect's last wait (for the processed count) lasts until the test stops it.
        let run = try await GatewayRun.start(broker) { configuration in
            Self.shippedRegistry(&configuration)
            configuration.metrics.publishInterval = 3600
        }
        // The starting count --expect reads first (the gateway has processed nothing yet).
        let observer = try await TestClients.connected(try TestClients.configuration(broker))
        try await observer.publish(MQTTMessage(topic: "gateway/metrics", string: "gateway_frames_processed_total 0\n", qos: .atLeastOnce, retain: true))
        let publisher = try Self.publishDive(to: broker, logLevel: "info", environment: clock.environment)
        // Logged once every frame is sent, right before the last wait begins.
        try await publisher.waitForErrorLog(containing: " done: ")
        try clock.step(to: 3600)
        // Wake the waiting --expect with a message it follows that does not end its wait: a
        // deadline on the wall clock would now count as passed.
        try await observer.publish(MQTTMessage(topic: "gateway/watch-ultra-1/connection", string: #"{"state":"online"}"#, qos: .atLeastOnce))
        // Stopped only once it processed every frame: its last metrics, at the stop, carry the
        // count --expect waits for (a CI run stopped it a few frames early, under load, and
        // --expect timed out on a count that could no longer come).
        try await run.waitForRegisteredMetric("gateway_frames_processed_total", atLeast: 655, timeout: 30)
        try await run.stop()
        try await publisher.waitForSuccess()
        #expect(publisher.output.contains("expectation met: the gateway's output matches the ground truth"), "\(publisher.output)")
        // The step reached the simulator: its last log line is dated an hour ahead.
        let last = publisher.errorLog.split(separator: "\n").last { $0.hasPrefix("20") }
        let loggedAt = last.flatMap { try? Date($0.prefix { $0 != " " }, strategy: .iso8601) }
        #expect(loggedAt.map { $0.timeIntervalSinceNow > 3000 } == true, "the simulator's log:\n\(publisher.errorLog)")
        await observer.shutdown()
    }
}
