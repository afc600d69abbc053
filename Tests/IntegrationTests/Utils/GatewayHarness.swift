import BrokerTestSupport
import Foundation
import Logging
import MQTTTransport
import Prometheus
import ServiceLifecycle
import TelemetryGateway

/// Runs the gateway in-process (the same `buildGateway` the executable calls) against a test
/// broker, with fast intervals, and stops it with a graceful shutdown.
final class GatewayHarness: @unchecked Sendable {
    let group: ServiceGroup
    let registry = PrometheusCollectorRegistry()
    private var task: Task<Void, any Error>?

    /// A configuration pointing at `broker`, with test-friendly intervals.
    static func configuration(broker: TestBroker, clientID: String = "gw-\(UUID().uuidString.prefix(6))") throws -> GatewayConfiguration {
        var configuration = GatewayConfiguration()
        configuration.mqtt.broker = try BrokerURL(parsing: broker.url)
        configuration.mqtt.clientID = clientID
        configuration.mqtt.reconnectInitialDelay = 0.05
        configuration.mqtt.reconnectMaximumDelay = 0.5
        configuration.pipeline.errorReportInterval = 1
        configuration.metrics.publishInterval = 0.2
        // Parallel tests would collide on the default port; tests of the HTTP server set their own.
        configuration.http.listen = nil
        // Open registry (every device, every entitlement) unless a test names a registry; the
        // shipped capability table always applies.
        configuration.registryFile = nil
        configuration.capabilitiesFile = TestBroker.repositoryRoot.appendingPathComponent("config/capabilities.yml").path
        // Each test's own recorder store (its directory is created on first use).
        configuration.recorder.database = broker.directory.appendingPathComponent("data/recorder.sqlite").path
        return configuration
    }

    init(configuration: GatewayConfiguration) throws {
        var logger = Logger(label: "gateway-under-test")
        logger.logLevel = ProcessInfo.processInfo.environment["WG_TEST_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .error
        let policy = try AccessPolicyLoader.load(configuration.accessPolicyFiles).policy
        group = buildGateway(
            configuration: configuration, logger: logger, metricsFactory: PrometheusMetricsFactory(registry: registry),
            prometheus: registry, accessPolicy: policy, shutdownSignals: [])
    }

    /// Starts the gateway in the background.
    func start() {
        let group = group
        task = Task { try await group.run() }
    }

    /// Graceful shutdown (as SIGTERM would), waiting until the gateway has stopped.
    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task?.value
    }

    /// The registry's current Prometheus text.
    var metrics: PrometheusText {
        PrometheusText(text: registry.emitToString())
    }
}
