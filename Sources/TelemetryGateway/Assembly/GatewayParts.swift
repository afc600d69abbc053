import GatewayJournal
import CoreMetrics
import Foundation
import Locking
import Logging
import MQTTTransport
import Ownership
import PostgresStore
import Prometheus
import ServiceLifecycle
import RecorderStore
import TelemetryCore

/// The parts one gateway run is made of: connections, queues, journal, recorder, metrics, on
/// the parts its process shares (``GatewayHost``). Built once per run by
/// ``GatewayHost/assembleRun(_:)``, which hands each service exactly the parts it uses; no
/// service holds this.
struct GatewayParts: Sendable {
    let configuration: GatewayConfiguration
    let logger: Logger
    let metrics: GatewayMetrics
    let recorderMetrics: RecorderMetrics
    let scheme: TopicScheme
    let accessPolicy: AccessPolicy
    let startedAt: Double
    let shutdownReport: ShutdownReport
    let clock: any GatewayClock

    /// Device frames per shard (one worker each); the byte budget bounds them together.
    let queues: [HandoffQueue<WorkItem>]
    let budget: BufferBudget
    /// Recorder queries, answered on their own task so device frames never wait behind them.
    let queries: HandoffQueue<RecorderRequest>
    /// The inbound journal; nil when `journal.path` is null.
    let journal: InboundJournal?
    let recorder: RecorderRuntime
    /// Device snapshots (`state.path`, or the shared store); nil keeps device state in memory only.
    let deviceStates: (any DeviceSnapshotStoring)?
    /// The process's client of the shared store (`store.backend: postgres`), run as a service.
    let storeClient: PostgresStoreClient?
    /// Clustered: this run's own connections for its lease statements in ``storeClient``, so
    /// its heartbeats wait neither behind data writes nor behind another run's heartbeats.
    let storeLane: PostgresStoreLane?
    /// The configuration key of the device state store, as logs and `/readyz` name it.
    var deviceStateKey: String { storeClient == nil ? "state.path" : "store.url" }
    let deviceStateMetrics: DeviceStateMetrics
    let publisher: OutboundPublisher
    /// Where the workers' outputs go: the publisher (single), or the fenced outputs in front of
    /// it (clustered: published once recorded under the partition's lease).
    let outputs: any OutputSink
    /// The fenced outputs' service (clustered); nil for a single gateway.
    let fencedOutputs: FencedOutputs?
    /// Clustered with a journal: what the subscriber's acknowledgements wait for (a frame's
    /// outputs published); nil for a single gateway, which acknowledges at once.
    let acknowledgements: AcknowledgementsAfterOutputs?
    /// The publishing connection (the publisher's).
    var connection: any OutboundConnection { publisher.client }
    /// Connection events of the publisher, consumed by the publisher service.
    let publisherEvents: AsyncStream<MQTTClientEvent>
    /// Ends once the broker answered the subscriber's first subscription: the publisher service
    /// announces `gateway/status` online only then, so a client that sees it online and publishes
    /// is heard (the subscriber connects after the publisher).
    let inboundSubscribed: AsyncStream<Never>
    private let inboundSubscribedSink: AsyncStream<Never>.Continuation
    /// Health, readiness, the fleet view and latency histograms (read by the HTTP service).
    let operations: GatewayOperations
    /// Who processes which device: the sole owner (single mode) or partition leases in the
    /// shared store (clustered).
    let ownership: any OwnershipPort
    let ownershipMetrics: OwnershipMetrics
    /// The partition leases in the shared store (clustered); nil for a single gateway.
    let leaseStore: (any LeaseStoring)?
    /// How device frames reach the subscriber: one filter, or per device of held partitions.
    let subscriptions: any InboundSubscriptions
    /// The per-device subscriptions (clustered; a stand-in's mark goes through them), or nil.
    let partitionSubscriptions: PartitionSubscriptions?
    /// What the store knows of each ownership partition's devices (nothing in single mode).
    let directory: any PartitionDirectory
    /// This instance's name in clustered modes; nil for a single gateway.
    let instance: String?
    /// Spans of processed frames, and the service exporting them; nil while
    /// `tracing.otlpEndpoint` is off.
    let tracing: FrameTracing?
    /// Where workers hand derived events for the event history (``NoEventHistory`` when off).
    let eventHistory: any EventHistory
    /// The event history's store and writer; nil when the history is off or there is no store.
    let historyStore: (any EventHistoryStoring)?
    let historyService: EventHistoryService?
    /// The subscribe-only connection's counters, once it exists.
    let subscriberStatistics = SubscriberStatistics()

    init(run: HostedRun, host: GatewayHost) throws {
        let (configuration, logger, metricsFactory, clock) = (run.configuration, run.logger, run.metricsFactory, host.clock)
        self.clock = clock
        self.configuration = configuration
        self.logger = logger
        accessPolicy = host.accessPolicy
        shutdownReport = run.shutdownReport
        startedAt = clock.wallTime()
        scheme = configuration.topics.scheme
        tracing = host.tracing?.tracer.forRun(instance: configuration.cluster.isClustered ? configuration.cluster.instanceName : nil, standInOf: run.adoptedBy)
        let shardCount = configuration.pipeline.workers > 0 ? configuration.pipeline.workers : UsableProcessors.count()
        let metrics = GatewayMetrics(factory: metricsFactory, shards: shardCount)
        self.metrics = metrics
        recorderMetrics = RecorderMetrics(factory: metricsFactory)
        budget = BufferBudget(limit: configuration.pipeline.maximumBufferedBytes, clock: clock)
        queues = (0..<shardCount).map { [budget] _ in HandoffQueue<WorkItem>(capacity: configuration.pipeline.queueCapacity, budget: budget, clock: clock) }
        queries = HandoffQueue<RecorderRequest>(capacity: configuration.recorder.queryQueueCapacity, clock: clock)
        let operations = GatewayOperations(configuration: configuration, metricsFactory: metricsFactory, logger: logger, clock: clock)
        self.operations = operations
        operations.watchQueues(queues, queries: queries, configuration: configuration)
        if let path = configuration.journal.path {
            // A stand-in's journal is its own: it starts empty, never replaying another's records.
            if !run.continuesJournal { InboundJournal.removeIfAbandoned(path) }
            do {
                // Past its high-water mark the journal asks the shards holding its oldest records
                // to write their snapshots now; the request waits behind their queued frames.
                let opened = try InboundJournal(path: path, capacity: configuration.journal.sizeBytes, clock: clock) { [queues] shard in
                    queues[shard].pushControl(.relieveJournal)
                }
                Self.report(opened.openReport, path: path, metrics: metrics, logger: logger)
                if let warning = DirtyPageLimit.current()?.warning(ringBytes: configuration.journal.sizeBytes, path: path) { logger.warning("\(warning)") }
                journal = opened
            } catch {
                throw GatewayStartError("journal.path: \(error)")
            }
        } else {
            journal = nil
        }
        let deviceStateMetrics = DeviceStateMetrics(factory: metricsFactory, shards: shardCount)
        self.deviceStateMetrics = deviceStateMetrics
        // Device snapshots of a single gateway (state.path); clustered ones are made below.
        var singleStates: (any DeviceSnapshotStoring)? = nil
        let ownershipMetrics = OwnershipMetrics(factory: metricsFactory)
        self.ownershipMetrics = ownershipMetrics
        instance = configuration.cluster.isClustered ? configuration.cluster.instanceName : nil
        storeClient = host.store
        // Without the shared store the recorder's SQLite file keeps the chunks and the history.
        let recorderDatabase = storeClient == nil ? RecorderRuntime.openSQLite(configuration.recorder, logger: logger) : nil
        recorder = RecorderRuntime(
            configuration: configuration, store: storeClient.map { PostgresRecorderStore($0) } ?? recorderDatabase, scheme: scheme, logger: logger,
            metrics: recorderMetrics, clock: clock)
        if storeClient == nil, let path = configuration.state.path {
            do {
                singleStates = try DeviceStateStore(
                    path: path, now: { Date(timeIntervalSince1970: clock.wallTime()) },
                    onMovedAside: { movedTo, error in
                        deviceStateMetrics.movedAside.increment()
                        logger.error(
                            "state.path: \(path) could not be opened (\(error)); moved it aside to \(movedTo), devices start with no stored state (gateway_device_state_moved_aside_total)"
                        )
                    })
            } catch {
                throw GatewayStartError("state.path: cannot open the device state store \(path): \(error)")
            }
        }

        // Clustered (always on the shared store): partitions leased there, snapshots fenced by
        // them, devices subscribed one by one. A single gateway owns every device, on SQLite or
        // on PostgreSQL (unfenced snapshots there), and needs no store to start.
        var leasedOwnership: LeasedOwnership?
        if configuration.cluster.isClustered, let client = storeClient {
            let cluster = configuration.cluster
            let lane = client.openLane(run.incarnation)
            storeLane = lane
            // Each call bounded by the lease time: a heartbeat that never answers must not keep
            // the instance from the store once it is back.
            let store = DeadlineLeaseStore(
                base: PostgresLeaseStore(client, lane: lane, adoptionWindow: cluster.adoptionWindow), seconds: cluster.leaseTime, clock: clock)
            leaseStore = store
            let incarnation = run.incarnation
            // A restart on its own disk knows its earlier run is over (it holds the journal that
            // run held): it takes the name over at once instead of waiting for the row to expire.
            // A stand-in continues its adopted run by the store's adoption instead.
            var succeeds: String?
            if run.continuesJournal, let journal {
                do {
                    succeeds = try journal.succeedRun(incarnation)
                } catch {
                    logger.warning("cluster: could not record this run beside the journal (\(error)); a restart on this disk will wait for this run's row to expire")
                }
            }
            logger.info("cluster: this is run \(incarnation) of instance \(cluster.instanceName)\(succeeds.map { " (run \($0) of this disk ended)" } ?? "")")
            if run.continuesJournal, let journal {
                // The journals of this instance's earlier stand-ins (`journal-gw-a-stand-in-gw-b.bin`
                // beside `journal-gw-a.bin`), left by a run that died with them: nothing reads them.
                let file = URL(fileURLWithPath: journal.path)
                let removed = InboundJournal.removeAbandoned(
                    in: file.deletingLastPathComponent().path, prefix: file.deletingPathExtension().lastPathComponent + GatewayConfiguration.Cluster.standInInfix,
                    suffix: file.pathExtension.isEmpty ? "" : "." + file.pathExtension)
                if !removed.isEmpty { logger.notice("cluster: removed \(removed.count) journal files of this instance's earlier stand-ins: \(removed)") }
            }
            let leased = LeasedOwnership(
                store: store, member: LeaseMember(
                    name: cluster.instanceName, incarnation: incarnation, session: configuration.mqtt.clientID, succeeds: succeeds),
                timing: LeaseHolder.Timing(ttl: cluster.leaseTime, margin: min(1, cluster.leaseTime / 4), warmup: cluster.handoverWarmup),
                heartbeat: cluster.heartbeatInterval, standInOf: run.adoptedBy, clock: clock, logger: logger,
                heartbeatAnswered: { ownershipMetrics.heartbeatSeconds.recordNanoseconds(Int64($0 * 1e9)) })
            let states = PostgresLeasedStateStore(client, ownership: leased)
            leasedOwnership = leased
            ownership = leased
            deviceStates = states
            directory = states
        } else {
            storeLane = nil
            leaseStore = nil
            ownership = SoleOwner()
            deviceStates = storeClient.map { PostgresLeasedStateStore($0, ownership: nil) } ?? singleStates
            directory = NoPartitionDirectory()
        }
        partitionSubscriptions =
            configuration.cluster.isClustered ? PartitionSubscriptions(scheme: scheme, partitions: ownership.partitions, metrics: ownershipMetrics) : nil
        subscriptions = partitionSubscriptions ?? FleetSubscription()
        (eventHistory, historyStore, historyService) = Self.history(
            configuration: configuration, store: storeClient.map { PostgresEventHistoryStore($0) } ?? recorderDatabase,
            metricsFactory: metricsFactory, health: operations.health, clock: clock, logger: logger)
        // Clustered with a journal: frames are acknowledged once their outputs are published.
        let hasJournal = journal != nil
        let leasedAcknowledgements = leasedOwnership.flatMap { leased in
            !hasJournal ? nil : AcknowledgementsAfterOutputs(keepalive: configuration.mqtt.keepalive, factory: metricsFactory, refusing: { leased.status.adopted })
        }
        let (events, sink) = AsyncStream.makeStream(of: MQTTClientEvent.self)
        publisherEvents = events
        (inboundSubscribed, inboundSubscribedSink) = AsyncStream.makeStream(of: Never.self)
        let will = StatusMessage(scheme: scheme, startedAt: startedAt, instance: instance).message(online: false, reason: "connectionLost")
        var publisherConfiguration = configuration.publisherConfiguration(will: will)
        publisherConfiguration.clientID += run.publisherClientIDSuffix
        // Clustered, a publisher whose session another client took while this run was past its
        // lease's deadline (frozen, say, and replaced under its name) waits to be registered
        // again before it reconnects, rather than knock the other run's publisher off in turn.
        publisherConfiguration.holdsReconnectAfterTakeover = { [ownership] in !ownership.status.mayResumeSession }
        let client = try host.connections.makePublisher(
            publisherConfiguration, logger,
            { event in
                metrics.recordConnectionEvent(event, connection: "publisher")
                operations.health.record(event, connection: "publisher")
                if case .disconnected = event { leasedAcknowledgements?.brokerLost() }
                sink.yield(event)
            })
        let publisher = OutboundPublisher(
            client: client, retained: RetainedStateCache(limit: configuration.retained.cacheBytes, partitions: ownership.partitions, evictions: metrics.retainedEvicted), metrics: metrics, operations: operations,
            clock: clock, logger: logger)
        self.publisher = publisher
        if let leased = leasedOwnership, let client = storeClient {
            let fenced = FencedOutputs(
                ledger: PostgresLeaseStore(client), ownership: leased, publisher: publisher, metrics: FencedOutputMetrics(factory: metricsFactory),
                drainSeconds: configuration.pipeline.drainTimeout, clock: clock, logger: logger)
            fencedOutputs = fenced
            outputs = fenced
            acknowledgements = leasedAcknowledgements
        } else {
            fencedOutputs = nil
            outputs = publisher
            acknowledgements = nil
        }
    }

    /// Says what the journal's scan at open found: torn records skipped, a scan that stopped
    /// at a bad record (whatever followed it is not replayed), an upgraded file.
    private static func report(_ report: InboundJournal.OpenReport, path: String, metrics: GatewayMetrics, logger: Logger) {
        if report.upgraded { logger.notice("journal.path: upgraded \(path) to format version \(JournalLayout.version)") }
        if report.corruptRecords > 0 {
            metrics.journalCorruptRecords.increment(by: report.corruptRecords)
            logger.error(
                "journal.path: \(report.corruptRecords) records of \(path) failed their checksum (a torn page) and are skipped, not replayed (gateway_journal_corrupt_records_total)")
        }
        if let stopped = report.stoppedAt {
            metrics.journalScanStopped.increment()
            logger.error(
                "journal.path: the scan of \(path) stopped at a bad record at position \(stopped.position) (\(stopped.reason)); records after it are not replayed (gateway_journal_scan_stopped_total)")
        }
    }

    /// The event history of `configuration` over `store` (the shared store's, or the recorder's
    /// SQLite file): its adapter, store and writer, or ``NoEventHistory`` when it is off.
    private static func history(
        configuration: GatewayConfiguration, store: (any EventHistoryStoring)?, metricsFactory: any MetricsFactory, health: RuntimeHealth,
        clock: any GatewayClock, logger: Logger
    ) -> (any EventHistory, (any EventHistoryStoring)?, EventHistoryService?) {
        guard configuration.historyIsEnabled else { return (NoEventHistory(), nil, nil) }
        guard let store else {
            logger.warning("history.enabled: the recorder's store could not be opened, so no event history is written")
            return (NoEventHistory(), nil, nil)
        }
        let history = BufferedEventHistory(
            families: configuration.history.families, maximumBytes: configuration.history.bufferBytes, metrics: HistoryMetrics(factory: metricsFactory),
            clock: clock, logger: logger)
        health.watchHistory { history.health }
        return (history, store, EventHistoryService(history: history, store: store, retention: configuration.history.retention, clock: clock, logger: logger))
    }

    var shardCount: Int { queues.count }

    /// The broker answered the subscriber's first subscription (see ``inboundSubscribed``).
    func markInboundSubscribed() { inboundSubscribedSink.finish() }

    /// The status message of this gateway (or instance).
    var status: StatusMessage { StatusMessage(scheme: scheme, startedAt: startedAt, instance: instance) }

    /// What every shard's worker works with.
    var workerDependencies: ShardWorker.Dependencies {
        ShardWorker.Dependencies(
            processor: .init(
                scheme: scheme, maxPayloadBytes: configuration.pipeline.maximumPayloadBytes,
                errorReportInterval: configuration.pipeline.errorReportInterval, maxTrackedDevices: configuration.state.maximumResidentDevices,
                accessPolicy: accessPolicy, derivation: configuration.derivation, deadLetters: configuration.deadLetters.policy,
                journalIdentity: journal?.identity),
            publisher: publisher, outputs: outputs, journal: journal, recorder: recorder, metrics: metrics, operations: operations, logger: logger,
            ownershipMetrics: ownershipMetrics, tracing: tracing, clock: clock, history: eventHistory)
    }

    /// The adopter of dead instances (clustered; nil for a single gateway), running each
    /// stand-in that `makeStandIn` builds.
    func adoptionService(makeStandIn: @escaping @Sendable (LeaseMember, String) throws -> ServiceGroup) -> AdoptionService? {
        guard let leaseStore, let instance else { return nil }
        let cluster = configuration.cluster
        return AdoptionService(
            store: leaseStore, adopter: instance, interval: cluster.heartbeatInterval, ttl: cluster.leaseTime,
            standInLimit: 4 * cluster.leaseTime + 3 * configuration.pipeline.drainTimeout, makeStandIn: makeStandIn,
            mayAdopt: { [ownership] in ownership.status.mayAdopt }, metrics: ownershipMetrics,
            clock: clock, logger: logger)
    }

    /// Makes shard `n`'s keeper of device state.
    func deviceStateKeeper(shard: Int) -> DeviceStateKeeper {
        DeviceStateKeeper(
            shard: shard, shardCount: shardCount, store: deviceStates, storeKey: deviceStateKey, metrics: deviceStateMetrics,
            health: operations.health, clock: clock, logger: logger, settings: configuration.state, retained: instance != nil ? publisher.retained : nil,
            sampleWindowHold: instance != nil ? .seconds(configuration.derivation.swing.alignmentWindow) : nil)
    }

    /// The subscriber's message handler.
    func makeRouter() -> InboundRouter {
        // Clustered, the partition leases decide which frames are this instance's; a single
        // gateway takes every one.
        let gate: any FrameGate =
            configuration.cluster.isClustered
            ? PartitionGate(ownership: ownership, subscriptions: subscriptions, acknowledgements: acknowledgements, metrics: ownershipMetrics) : OpenGate()
        let appender = journal.map {
            JournalAppender(
                journal: $0, acknowledgements: acknowledgements, maximumWait: configuration.journal.maximumWait, metrics: metrics, clock: clock, logger: logger)
        }
        return InboundRouter(
            scheme: scheme, clock: clock, queues: queues, maximumHandoffWait: configuration.pipeline.maximumHandoffWait, journal: appender,
            recorder: recorder, queries: queries, metrics: metrics, health: operations.health, gate: gate, logger: logger)
    }
}
