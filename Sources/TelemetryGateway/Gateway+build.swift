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
/// Services start in this order and stop in the reverse one (swift-service-lifecycle): (with
/// `tracing.otlpEndpoint`) the span exporter, journal release, (`store.backend: postgres`) the
/// shared store's client, publisher, the HTTP servers,
/// metrics, round-trip probe, journal sync, recorder pruning, (`history.enabled`) the event
/// history's writer, device-state pruning, shard workers,
/// ticker, policy reload, subscriber, and the ownership (docs/scale-out.md). So at SIGTERM a
/// clustered instance first hands its partitions over (make-before-break, bounded by
/// `pipeline.drainTimeout`) and gives up the rest, then the subscriber stops receiving, the workers drain what is queued (bounded
/// by `pipeline.drainTimeout`), the final metrics go out, the journal is synced, the publisher
/// says offline and waits for its acknowledgements (the whole shutdown is bounded by twice the
/// drain timeout), the journal's file is let go, and the last spans are exported.
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
    try assembleGateway(
        configuration: configuration.withInstancePaths(), base: configuration, logger: logger, metricsFactory: metricsFactory, prometheus: prometheus,
        accessPolicy: accessPolicy, shutdownSignals: shutdownSignals, shutdownReport: shutdownReport, exitOnShutdownOverrun: exitOnShutdownOverrun,
        clock: clock, connections: connections, standIn: nil)
}

/// The gateway's service group for `configuration` (its paths already the instance's); `base`
/// is the configuration as given, from which a dead instance's stand-in is made. A stand-in
/// (`standIn`: its incarnation and adopter) runs under the dead instance's name, adopts nobody, serves no
/// HTTP, and its group ends once it has handed everything over.
func assembleGateway(
    configuration: GatewayConfiguration, base: GatewayConfiguration, logger: Logger, metricsFactory: any MetricsFactory,
    prometheus: PrometheusCollectorRegistry?, accessPolicy: AccessPolicy, shutdownSignals: [UnixSignal], shutdownReport: ShutdownReport,
    exitOnShutdownOverrun: Bool, clock: any GatewayClock, connections: BrokerConnections, standIn: (incarnation: String, adopter: String)?
) throws -> ServiceGroup {
    let metricsFactory: any MetricsFactory =
        configuration.cluster.isClustered ? InstanceLabelledMetricsFactory(base: metricsFactory, instance: configuration.cluster.instanceName) : metricsFactory
    let parts = try GatewayParts(
        configuration: configuration, accessPolicy: accessPolicy, logger: logger, metricsFactory: metricsFactory, prometheus: prometheus,
        shutdownReport: shutdownReport, clock: clock, connections: connections, standIn: standIn)
    let (standInSubscribed, standInSubscribedSink) = AsyncStream.makeStream(of: Never.self)
    let deadline = ShutdownDeadline(drainTimeout: configuration.pipeline.drainTimeout, clock: clock)
    var subscriberConfiguration = configuration.subscriberConfiguration()
    subscriberConfiguration.acknowledgementGate = parts.acknowledgements
    logger.info(
        "wearable-gateway \(ProductVersion.current) starting: broker \(configuration.mqtt.broker), \(parts.shardCount) workers, inbound \(configuration.inboundFilters(parts.scheme).joined(separator: " "))\(configuration.cluster.mode == .partitioned ? " + \(parts.scheme.deviceInboundFilter(rawDevice: "{id}")) per owned device" : ""), outbound \(parts.scheme.outboundRoot)/#, journal \(configuration.journal.path ?? "off")\(configuration.cluster.isClustered ? ", cluster \(configuration.cluster.mode.rawValue) as \(configuration.cluster.instanceName)" : "")"
    )
    let services: [(any Service)?] = [
        // First, so it stops last: the spans of the drain are exported too.
        parts.tracingService,
        JournalReleaseService(journal: parts.journal),
        // Stops after every part that writes to the shared store.
        parts.storeClient.map { SharedStoreService(client: $0, leaseClient: parts.leaseClient, health: parts.operations.health, clock: clock, logger: logger) },
        PublisherService(
            publisher: parts.publisher, events: parts.publisherEvents, inboundSubscribed: parts.inboundSubscribed, status: parts.status,
            reannounceRate: configuration.retained.reannounceRate, visible: { [ownership = parts.ownership] in ownership.visible($0) }, deadline: deadline, shutdownReport: shutdownReport, clock: clock,
            registered: { [ownership = parts.ownership] in await ownership.ready() }, logger: logger),
        // The HTTP server stops late so /metrics and /readyz answer during the drain.
        configuration.http.listen.map {
            HTTPService(
                address: $0, endpoints: parts.operations.endpoints(prometheus: prometheus, history: parts.historyStore), tls: configuration.httpTLSFiles,
                logger: logger)
        },
        configuration.http.metricsListen.map {
            HTTPService(
                address: $0, endpoints: parts.operations.endpoints(prometheus: prometheus), routes: .metricsOnly, tls: configuration.httpTLSFiles, logger: logger)
        },
        MetricsService(
            prometheus: prometheus, interval: configuration.metrics.publishInterval,
            // A stand-in's under a name of its own: the instance taken for dead may be alive.
            topic: parts.instance.map { .instanceMetrics(standIn == nil ? $0 : "\($0)-stand-in") } ?? .metrics, scheme: parts.scheme, connection: parts.connection,
            subscriber: parts.subscriberStatistics,
            metrics: parts.metrics, queues: parts.queues, budget: parts.budget, journal: parts.journal, queueCapacity: configuration.pipeline.queueCapacity,
            health: parts.operations.health, clock: clock, logger: logger),
        RoundTripProbeService(operations: parts.operations, connection: parts.connection),
        JournalSyncService(journal: parts.journal, interval: configuration.journal.flushInterval, metrics: parts.metrics, clock: clock, logger: logger),
        RecorderPruningService(recorder: parts.recorder),
        // Listed before the workers, so it stops after them and writes what they left.
        parts.historyService,
        // Clustered: before the workers too, so it records and publishes what they handed over.
        parts.fencedOutputs,
        DeviceStatePruningService(
            store: parts.deviceStates, retention: configuration.state.retention, metrics: parts.deviceStateMetrics, clock: clock, logger: logger),
        ShardWorkerService(
            queues: parts.queues, makeDeviceStates: parts.deviceStateKeeper(shard:), dependencies: parts.workerDependencies,
            answerer: RecorderQueryAnswerer(recorder: parts.recorder, queries: parts.queries, connection: parts.connection, metrics: parts.metrics),
            deadline: deadline, shutdownReport: shutdownReport),
        TickerService(
            queues: parts.queues, period: TickerService.period(errorReportInterval: configuration.pipeline.errorReportInterval, snapshotInterval: configuration.state.snapshotInterval),
            health: parts.operations.health, clock: clock),
        PolicyReloadService(files: configuration.accessPolicyFiles, initial: accessPolicy, queues: parts.queues, clock: clock, logger: logger),
        SubscriberService(
            connections: connections, configuration: subscriberConfiguration, filters: configuration.inboundFilters(parts.scheme),
            connectTimeout: configuration.mqtt.connectTimeout, router: parts.makeRouter(), journal: parts.journal, queues: parts.queues,
            queries: parts.queries, budget: parts.budget, deadline: deadline, metrics: parts.metrics, health: parts.operations.health,
            statistics: parts.subscriberStatistics, standing: SubscriberStanding(parts.ownership), subscriptions: parts.subscriptions,
            onSubscribed: {
                parts.markInboundSubscribed()
                standInSubscribedSink.finish()
            },
            logger: logger, exitOnShutdownOverrun: exitOnShutdownOverrun),
    ]
    // After the subscriber, so it stops first: the instance hands its partitions over while it
    // still processes. A run whose name another live run holds ends its ownership with that
    // error: the whole group stops then, gracefully (nothing of it connected to the broker yet,
    // or it holds nothing any more), and the executable exits with it.
    let ownership = ServiceGroupConfiguration.ServiceConfiguration(
        service: OwnershipService(
            ownership: parts.ownership, directory: parts.directory, subscriptions: parts.subscriptions, queues: parts.queues,
            metrics: parts.ownershipMetrics, drainSeconds: configuration.pipeline.drainTimeout, clock: clock, logger: logger),
        failureTerminationBehavior: .gracefullyShutdownGroup)
    let adoptions: (any Service)? =
        // Clustered: after the ownership, so it stops first and a running stand-in hands over
        // while this instance still takes partitions.
        standIn == nil
            ? parts.adoptionService { dead, incarnation in
                try standInGateway(
                    of: dead, incarnation: incarnation, base: base, adopter: configuration.cluster.instanceName, logger: logger, accessPolicy: accessPolicy,
                    clock: clock, connections: connections)
            } : nil
    var serviceConfigurations =
        services.compactMap { $0.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) } } + [ownership]
        + [adoptions].compactMap { $0.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) } }
    if let standIn, let subscriptions = parts.subscriptions as? PartitionSubscriptions, let instance = parts.instance {
        // Its return stops the stand-in's group: it hands over and leaves.
        let mark = StandInService(
            ownership: parts.ownership, subscribed: standInSubscribed, subscriptions: subscriptions,
            markTopic: "\(parts.scheme.outboundRoot)/instances/\(instance)/stand-in/\(standIn.incarnation)", connection: parts.connection, clock: clock,
            logger: logger)
        serviceConfigurations.append(.init(service: mark, successTerminationBehavior: .gracefullyShutdownGroup))
    }
    var groupConfiguration = ServiceGroupConfiguration(
        services: serviceConfigurations,
        gracefulShutdownSignals: shutdownSignals,
        logger: logger)
    // A service that does not end 2 s past the shutdown's bound is cancelled (the executable
    // ends itself at the bound; this also bounds a gateway run in-process, as the testing kit
    // does). The bound: 2 × pipeline.drainTimeout, after a clustered instance's hand-over (at
    // most one more).
    let drainTimeouts = configuration.cluster.isClustered ? 3.0 : 2.0
    groupConfiguration.maximumGracefulShutdownDuration = .seconds(drainTimeouts * configuration.pipeline.drainTimeout + 2)
    return ServiceGroup(configuration: groupConfiguration)
}

/// The service group of `dead`'s stand-in (``AdoptionService``): `base` under the dead name, no
/// HTTP, metrics in a registry of its own (published under the dead name), and a journal file of
/// its own beside the adopter's (the dead run's file may still be held: a frozen process, or a
/// restart waiting for the stand-in to leave).
private func standInGateway(
    of dead: LeaseMember, incarnation: String, base: GatewayConfiguration, adopter: String, logger: Logger, accessPolicy: AccessPolicy,
    clock: any GatewayClock, connections: BrokerConnections
) throws -> ServiceGroup {
    var configuration = base
    configuration.cluster.instance = dead.name
    // The dead run's client ids, so its subscriber's session is resumed.
    if let clientID = dead.clientID { configuration.mqtt.clientID = clientID }
    configuration.http.listen = nil
    configuration.http.metricsListen = nil
    var resolved = configuration.withInstancePaths()
    var own = base
    // One file per dead name: an adopter may run several stand-ins at once.
    own.cluster.instance = adopter + GatewayConfiguration.Cluster.standInInfix + dead.name
    resolved.journal.path = own.withInstancePaths().journal.path
    let registry = PrometheusCollectorRegistry()
    var standInLogger = logger
    standInLogger[metadataKey: "standInOf"] = "\(dead.name)"
    return try assembleGateway(
        configuration: resolved, base: configuration, logger: standInLogger, metricsFactory: CatalogMetricsFactory(registry: registry), prometheus: registry,
        accessPolicy: accessPolicy, shutdownSignals: [], shutdownReport: ShutdownReport(), exitOnShutdownOverrun: false, clock: clock,
        connections: connections, standIn: (incarnation, adopter))
}
