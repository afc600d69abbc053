import Foundation
import Logging
import MQTTTransport
import Ownership
import Metrics
import Prometheus
import ServiceLifecycle
import TelemetryCore
import UnixSignals

/// Builds the gateway's service group; the executable and the tests both call this, so what
/// is tested is what runs.
///
/// Services start in this order and stop in the reverse one (swift-service-lifecycle):
/// (`store.backend: postgres`) the shared store's client, (`tracing.otlpEndpoint`) the span
/// exporter, the run's own services (``GatewayHost/assembleRun(_:)``: journal release, publisher, the HTTP
/// servers, metrics, … shard workers, ticker, policy reload, subscriber, the ownership), and
/// (clustered) the adopter of dead instances (docs/scale-out.md). So at SIGTERM a clustered
/// instance first stops its stand-ins (each hands over what it can), hands its partitions over
/// (make-before-break, bounded by `pipeline.drainTimeout`) and gives up the rest, then the
/// subscriber stops receiving, the workers drain what is queued (bounded by
/// `pipeline.drainTimeout`), the final metrics go out, the journal is synced, the publisher says
/// offline and waits for its acknowledgements (the whole shutdown is bounded by twice the drain
/// timeout), the journal's file is let go, the last spans are exported, and the store's
/// connections close.
/// - Parameters:
///   - configuration: a validated configuration.
///   - logger: the root logger.
///   - metricsFactory: where metrics are recorded.
///   - prometheus: the registry published on `gateway/metrics` and served on `/metrics` (nil: neither).
///   - accessPolicy: the device registry and capability table (see ``AccessPolicyLoader``).
///   - shutdownSignals: signals that start a graceful shutdown (none in tests).
///   - shutdownReport: filled during shutdown with what could not be drained (exit status).
///   - exitOnShutdownOverrun: end the process if shutdown overruns `2 × pipeline.drainTimeout`
///     (the executable; never in-process tests).
///   - clock: where the runtime reads the time (the machine's clocks by default).
///   - connections: makes the two broker connections (libmosquitto by default; tests may run
///     the whole runtime on connections without a broker).
/// - Throws: ``GatewayStartError`` when the journal cannot be opened, or the transport's error
///   when libmosquitto refuses the settings.
public func buildGateway(
    configuration: GatewayConfiguration,
    logger: Logger,
    metricsFactory: any MetricsFactory,
    prometheus: PrometheusCollectorRegistry?,
    accessPolicy: AccessPolicy,
    shutdownSignals: [UnixSignal] = [.sigterm, .sigint],
    shutdownReport: ShutdownReport = ShutdownReport(),
    exitOnShutdownOverrun: Bool = false,
    clock: any GatewayClock = SystemGatewayClock(),
    connections: BrokerConnections = .mosquitto
) throws -> ServiceGroup {
    // Clustered instances keep their own journal and recorder files and label their metrics.
    let run = HostedRun.primary(
        configuration: configuration, logger: logger, metricsFactory: metricsFactory, shutdownReport: shutdownReport,
        exitOnShutdownOverrun: exitOnShutdownOverrun, incarnation: String(UUID().uuidString.prefix(8)))
    // One tracer for the process, its dropped spans counted with the process's own run.
    let tracing = try FrameTracing.start(configuration: run.configuration, logger: logger, metricsFactory: run.metricsFactory, clock: clock)
    let host = GatewayHost(
        base: configuration, accessPolicy: accessPolicy, clock: clock, connections: connections, metricsFactory: metricsFactory, prometheus: prometheus,
        tracing: tracing, logger: logger)
    return try assembleGateway(host: host, run: run, shutdownSignals: shutdownSignals)
}

/// The process's service group: its own run (``GatewayHost/assembleRun(_:)``) between what the
/// process shares among the runs it hosts. First, so they stop last, the shared store's client
/// (`store.backend: postgres`: its pools run there, the stand-ins' lanes too) and the span
/// exporter (`tracing.otlpEndpoint`); last, so it stops
/// first and a running stand-in hands over while this run still takes partitions, the adopter
/// of dead instances (clustered), which runs each stand-in the host builds.
func assembleGateway(host: GatewayHost, run: HostedRun, shutdownSignals: [UnixSignal]) throws -> ServiceGroup {
    let assembled = try host.assembleRun(run)
    let parts = assembled.parts
    let sharedStore = host.storeService(health: parts.operations.health)
    let adoptions = parts.adoptionService { dead, incarnation in
        try host.standInGroup(of: dead, incarnation: incarnation, adopter: run.configuration.cluster.instanceName)
    }
    // The span exporter after the store's client, so it stops just before it: the spans of
    // every run's drain are exported too.
    let shared: [(any Service)?] = [sharedStore, host.tracing?.exporter]
    let services = shared.compactMap { $0.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) } } + assembled.services
        + [adoptions.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) }].compactMap { $0 }
    return assembled.group(services, shutdownSignals: shutdownSignals)
}
