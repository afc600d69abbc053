import Logging
import Metrics
import Prometheus
import ServiceLifecycle
import TelemetryCore
import UnixSignals

/// Builds the gateway's service group; the executable and the tests both call this, so what
/// is tested is what runs.
/// - Parameters:
///   - configuration: a validated configuration.
///   - logger: the root logger.
///   - metricsFactory: where metrics are recorded.
///   - prometheus: the registry published on `gateway/metrics` and served on `/metrics` (nil: neither).
///   - accessPolicy: the device registry and capability table (see ``AccessPolicyLoader``).
///   - shutdownSignals: signals that start a graceful shutdown (none in tests).
public func buildGateway(
    configuration: GatewayConfiguration,
    logger: Logger,
    metricsFactory: any MetricsFactory,
    prometheus: PrometheusCollectorRegistry?,
    accessPolicy: AccessPolicy,
    shutdownSignals: [UnixSignal] = [.sigterm, .sigint]
) -> ServiceGroup {
    let operations = GatewayOperations(configuration: configuration, metricsFactory: metricsFactory, logger: logger)
    let gateway = GatewayService(
        configuration: configuration, accessPolicy: accessPolicy, logger: logger, metricsFactory: metricsFactory, prometheus: prometheus,
        operations: operations)
    var services: [ServiceGroupConfiguration.ServiceConfiguration] = [.init(service: gateway)]
    // The HTTP server (http.listen): metrics, health, readiness and the fleet page.
    if let address = configuration.http.listen {
        services.append(.init(service: HTTPService(address: address, endpoints: operations.endpoints(prometheus: prometheus), logger: logger)))
    }
    return ServiceGroup(
        configuration: .init(
            services: services,
            gracefulShutdownSignals: shutdownSignals,
            logger: logger))
}
