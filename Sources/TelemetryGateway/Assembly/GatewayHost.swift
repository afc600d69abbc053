import Logging
import Metrics
import Prometheus
import MQTTTransport
import Ownership
import PostgresStore
import ServiceLifecycle
import TelemetryCore

/// What a gateway process shares among the runs it hosts (its own, and the stand-ins it runs for
/// dead instances): the configuration as given, the access policy, the clock, the broker
/// connections' maker, the metrics registry (one per process: each run's series labelled by the
/// run) and the shared store's client (one per process: its data pool, and a lane of
/// connections per run for that run's lease statements).
struct GatewayHost: Sendable {
    /// The configuration as given (a stand-in's is made from it).
    let base: GatewayConfiguration
    let accessPolicy: AccessPolicy
    let clock: any GatewayClock
    let connections: BrokerConnections
    let logger: Logger
    /// Where every run records its metrics (labelled by run), and the registry behind it, served
    /// on `/metrics` and published by the process's own run (nil: neither).
    let metricsFactory: any MetricsFactory
    let prometheus: PrometheusCollectorRegistry?
    /// The tracer every run starts its frames' spans from and the service exporting them
    /// (`tracing.otlpEndpoint`; nil when off).
    let tracing: (tracer: FrameTracing, exporter: any Service)?
    /// The shared store's client; nil without `store.backend: postgres`.
    let store: PostgresStoreClient?

    init(
        base: GatewayConfiguration, accessPolicy: AccessPolicy, clock: any GatewayClock, connections: BrokerConnections, metricsFactory: any MetricsFactory,
        prometheus: PrometheusCollectorRegistry?, tracing: (tracer: FrameTracing, exporter: any Service)?, logger: Logger
    ) {
        self.tracing = tracing
        self.base = base
        self.metricsFactory = metricsFactory
        self.prometheus = prometheus
        self.accessPolicy = accessPolicy
        self.clock = clock
        self.connections = connections
        self.logger = logger
        store = base.store.postgresSettings.map { PostgresStoreClient(settings: $0, logger: logger) }
    }

    /// The process's store service (the pools' runs and the store check), if it has a store.
    func storeService(health: RuntimeHealth) -> SharedStoreService? {
        store.map { SharedStoreService(client: $0, health: health, clock: clock, logger: logger) }
    }

    /// The service group of `dead`'s stand-in, adopted by `adopter` under `incarnation`
    /// (``AdoptionService``): the run's services, then the wait for its resumed session's
    /// backlog, whose end stops the group (it hands over and leaves).
    func standInGroup(of dead: LeaseMember, incarnation: String, adopter: String) throws -> ServiceGroup {
        let run = HostedRun.standIn(of: dead, incarnation: incarnation, adopter: adopter, base: base, metricsFactory: metricsFactory, logger: logger)
        let assembled = try assembleRun(run)
        var services = assembled.services
        // What the run holds of the process's parts is let go once the rest of its group
        // stopped (first in, last out): its lease lane, its gauges.
        let release = RunReleaseService(store: store.flatMap { store in assembled.parts.storeLane.map { (store, $0) } }, gauges: run.releasableGauges)
        services.insert(.init(service: release), at: 0)
        if let markTopic = run.backlogMark, let subscriptions = assembled.parts.partitionSubscriptions {
            let mark = StandInService(
                ownership: assembled.parts.ownership, subscribed: assembled.subscribed, subscriptions: subscriptions, markTopic: markTopic,
                connection: assembled.parts.connection, clock: clock, logger: run.logger)
            services.append(.init(service: mark, successTerminationBehavior: .gracefullyShutdownGroup))
        }
        return assembled.group(services, shutdownSignals: [])
    }
}
