import Foundation
import Logging
import MQTTTransport
import Prometheus
import ServiceLifecycle
import TelemetryGateway

/// Runs the gateway in-process (the same `buildGateway` the executable calls) against a test
/// broker, with fast intervals, and stops it with a graceful shutdown.
public final class GatewayHarness: @unchecked Sendable {
    /// The gateway's service group, as `buildGateway` made it.
    public let group: ServiceGroup
    /// The Prometheus registry the gateway records into.
    public let registry = PrometheusCollectorRegistry()
    private var task: Task<Void, any Error>?

    /// A configuration pointing at `broker`, with test-friendly intervals.
    public static func configuration(broker: TestBroker, clientID: String = "gw-\(UUID().uuidString.prefix(6))") throws -> GatewayConfiguration {
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
        // (built into the kit: no checkout needed).
        configuration.capabilitiesFile = try ShippedCapabilities.write(into: broker.directory.appendingPathComponent("config-\(clientID)"))
        // Each test's own recorder store (its directory is created on first use).
        configuration.recorder.database = broker.directory.appendingPathComponent("data/recorder.sqlite").path
        configuration.journal.path = broker.directory.appendingPathComponent("data/journal-\(clientID).bin").path
        configuration.journal.sizeBytes = 33_554_432
        // Device state in memory: a test that restarts the gateway and expects open dives or
        // sessions to continue sets `state.path` (docs/testing.md).
        configuration.state.path = nil
        return configuration
    }

    /// Builds the gateway (not started yet).
    /// - Throws: when the registry or capability file named in `configuration` does not load.
    /// - Parameters:
    ///   - logLevel: the gateway's log level; default `$WG_TEST_LOG_LEVEL`, else `error`.
    ///   - clock: the gateway's clock; a ``ManualGatewayClock`` lets a test say when frames arrive.
    public init(configuration: GatewayConfiguration, logLevel: Logger.Level? = nil, clock: any GatewayClock = SystemGatewayClock()) throws {
        var logger = Logger(label: "gateway-under-test")
        logger.logLevel =
            logLevel ?? ProcessInfo.processInfo.environment["WG_TEST_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .error
        let policy = try AccessPolicyLoader.load(configuration.accessPolicyFiles).policy
        group = try buildGateway(
            configuration: configuration, logger: logger, metricsFactory: CatalogMetricsFactory(registry: registry),
            prometheus: registry, accessPolicy: policy, shutdownSignals: [], clock: clock)
    }

    /// A test that failed before ``stop()`` must not leave its gateway running (and writing
    /// into the broker directory that is being deleted): cancelling the run shuts it down.
    deinit {
        task?.cancel()
    }

    /// Starts the gateway in the background.
    public func start() {
        let group = group
        task = Task { try await group.run() }
    }

    /// Graceful shutdown (as SIGTERM would), waiting until the gateway has stopped.
    public func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task?.value
    }

    /// The registry's current Prometheus text.
    public var metrics: PrometheusText {
        PrometheusText(text: registry.emitToString())
    }
}
