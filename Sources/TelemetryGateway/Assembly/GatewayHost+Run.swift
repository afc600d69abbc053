import Logging
import MQTTTransport
import Ownership
import ServiceLifecycle
import TelemetryCore

extension GatewayHost {
    /// The parts and services of `run` on this host's shared parts. Services start in this order
    /// and stop in the reverse one: journal release, publisher, the HTTP servers, metrics,
    /// round-trip probe, journal sync, recorder pruning, (`history.enabled`) the event history's
    /// writer, (clustered) the fenced outputs, device-state pruning, shard workers, ticker, policy
    /// reload, subscriber, and the ownership (docs/scale-out.md).
    func assembleRun(_ run: HostedRun) throws -> AssembledRun {
        let configuration = run.configuration
        let logger = run.logger
        let parts = try GatewayParts(run: run, host: self)
        let (subscribed, subscribedSink) = AsyncStream.makeStream(of: Never.self)
        let deadline = ShutdownDeadline(drainTimeout: configuration.pipeline.drainTimeout, clock: clock)
        var subscriberConfiguration = configuration.subscriberConfiguration()
        subscriberConfiguration.acknowledgementGate = parts.acknowledgements
        logger.info(
            "wearable-gateway \(ProductVersion.current) starting: broker \(configuration.mqtt.broker), \(parts.shardCount) workers, inbound \(configuration.inboundFilters(parts.scheme).joined(separator: " "))\(configuration.cluster.mode == .partitioned ? " + \(parts.scheme.deviceInboundFilter(rawDevice: "{id}")) per owned device" : ""), outbound \(parts.scheme.outboundRoot)/#, journal \(configuration.journal.path ?? "off")\(configuration.cluster.isClustered ? ", cluster \(configuration.cluster.mode.rawValue) as \(configuration.cluster.instanceName)" : "")"
        )
        let prometheus = self.prometheus
        let services: [(any Service)?] = [
            JournalReleaseService(journal: parts.journal),
            PublisherService(
                publisher: parts.publisher, events: parts.publisherEvents, inboundSubscribed: parts.inboundSubscribed, status: parts.status,
                reannounceRate: configuration.retained.reannounceRate, reannouncesAtFirstConnection: run.adoptedBy == nil,
                visible: { [ownership = parts.ownership] in ownership.visible($0) }, deadline: deadline, shutdownReport: run.shutdownReport, clock: clock,
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
                prometheus: run.metricsTopic == nil ? nil : prometheus, interval: configuration.metrics.publishInterval,
                topic: run.metricsTopic ?? .metrics, samplesProcess: run.metricsTopic != nil, scheme: parts.scheme, connection: parts.connection,
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
                deadline: deadline, shutdownReport: run.shutdownReport),
            TickerService(
                queues: parts.queues,
                period: TickerService.period(errorReportInterval: configuration.pipeline.errorReportInterval, snapshotInterval: configuration.state.snapshotInterval),
                health: parts.operations.health, clock: clock),
            PolicyReloadService(files: configuration.accessPolicyFiles, initial: accessPolicy, queues: parts.queues, clock: clock, logger: logger),
            SubscriberService(
                connections: connections, configuration: subscriberConfiguration, filters: configuration.inboundFilters(parts.scheme),
                connectTimeout: configuration.mqtt.connectTimeout, router: parts.makeRouter(), journal: parts.journal, queues: parts.queues,
                queries: parts.queries, budget: parts.budget, deadline: deadline, metrics: parts.metrics, health: parts.operations.health,
                statistics: parts.subscriberStatistics, standing: SubscriberStanding(parts.ownership), subscriptions: parts.subscriptions,
                onSubscribed: {
                    parts.markInboundSubscribed()
                    subscribedSink.finish()
                },
                logger: logger, exitOnShutdownOverrun: run.exitOnShutdownOverrun),
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
        return AssembledRun(
            run: run, parts: parts, services: services.compactMap { $0.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) } } + [ownership],
            subscribed: subscribed)
    }
}
