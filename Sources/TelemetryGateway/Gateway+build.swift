import Logging
import Metrics
import Prometheus
import ServiceLifecycle
import TelemetryCore
import UnixSignals

/// Builds the gateway's service group; the executable and the tests both call this, so what
/// is tested is what runs.
///
/// Services start in this order and stop in the reverse one (swift-service-lifecycle):
/// publisher, (partitioned mode) snapshot sharing, metrics, journal sync, recorder pruning,
/// device-state pruning, shard workers, ticker, policy reload, subscriber, and in clustered
/// modes the membership
/// (docs/scale-out.md). So at SIGTERM the subscriber stops receiving first, the workers drain what is
/// queued (bounded by `pipeline.drainTimeout`), the final metrics go out, the journal is synced,
/// and the publisher says offline and waits for its acknowledgements (the whole shutdown is
/// bounded by twice the drain timeout).
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
///   - handover: what workers do when partitioned mode (`cluster.mode`) moves a device to this
///     instance or away from it; ``ContextReplayHandover`` by default.
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
    handover: any DeviceHandover = ContextReplayHandover()
) throws -> ServiceGroup {
    // Clustered instances keep their own journal and recorder files and label their metrics.
    let configuration = configuration.withInstancePaths()
    let metricsFactory: any MetricsFactory =
        configuration.cluster.isClustered ? InstanceLabelledMetricsFactory(base: metricsFactory, instance: configuration.cluster.instanceName) : metricsFactory
    let runtime = try GatewayRuntime(
        configuration: configuration, accessPolicy: accessPolicy, logger: logger, metricsFactory: metricsFactory, prometheus: prometheus,
        shutdownReport: shutdownReport, handover: handover)
    let deadline = ShutdownDeadline(drainTimeout: configuration.pipeline.drainTimeout)
    logger.info(
        "wearable-gateway \(ProductVersion.current) starting: broker \(configuration.mqtt.broker), \(runtime.shardCount) workers, inbound \(runtime.scheme.inboundFilter), outbound \(runtime.scheme.outboundRoot)/#, journal \(configuration.journal.path ?? "off")\(configuration.cluster.isClustered ? ", cluster \(configuration.cluster.mode.rawValue) as \(configuration.cluster.instanceName)" : "")"
    )
    let services: [(any Service)?] = [
        PublisherService(runtime: runtime, deadline: deadline),
        // Stops after the workers, so their last snapshots go out.
        runtime.cluster.flatMap { $0.sharesState ? SnapshotShareService(runtime: runtime, cluster: $0) : nil },
        // The HTTP server stops late so /metrics and /readyz answer during the drain.
        configuration.http.listen.map {
            HTTPService(address: $0, endpoints: runtime.operations.endpoints(prometheus: prometheus), logger: logger)
        },
        configuration.http.metricsListen.map {
            HTTPService(address: $0, endpoints: runtime.operations.endpoints(prometheus: prometheus), routes: .metricsOnly, logger: logger)
        },
        MetricsService(runtime: runtime),
        RoundTripProbeService(runtime: runtime),
        JournalSyncService(runtime: runtime),
        RecorderPruningService(runtime: runtime),
        DeviceStatePruningService(runtime: runtime),
        ShardWorkerService(runtime: runtime, deadline: deadline),
        TickerService(runtime: runtime),
        PolicyReloadService(runtime: runtime),
        SubscriberService(runtime: runtime, deadline: deadline, exitOnShutdownOverrun: exitOnShutdownOverrun),
        // Last, so it stops first: the instance leaves the membership before it stops receiving.
        runtime.cluster.map { MembershipService(runtime: runtime, cluster: $0) },
    ]
    return ServiceGroup(
        configuration: .init(
            services: services.compactMap { $0.map { .init(service: $0) } },
            gracefulShutdownSignals: shutdownSignals,
            logger: logger))
}
