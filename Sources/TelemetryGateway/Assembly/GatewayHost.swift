import Logging
import MQTTTransport
import Ownership
import PostgresStore
import ServiceLifecycle
import TelemetryCore

/// What a gateway process shares among the runs it hosts (its own, and the stand-ins it runs for
/// dead instances): the configuration as given, the access policy, the clock and the broker
/// connections' maker; and the shared store's connection pools of its own run (a stand-in opens
/// its own: docs/scale-out.md, *Not done yet*).
struct GatewayHost: Sendable {
    /// The shared store's two connection pools (`store.backend: postgres`).
    struct StoreClients: Sendable {
        /// Snapshots, the output ledger, the event history and the recorder.
        let data: PostgresStoreClient
        /// Clustered: the lease statements alone (two connections), so a heartbeat never waits
        /// for a connection behind data writes.
        let leases: PostgresStoreClient?
    }

    /// The configuration as given (a stand-in's is made from it).
    let base: GatewayConfiguration
    let accessPolicy: AccessPolicy
    let clock: any GatewayClock
    let connections: BrokerConnections
    let logger: Logger
    /// The process's own run's store pools; nil without `store.backend: postgres`.
    let store: StoreClients?

    init(base: GatewayConfiguration, accessPolicy: AccessPolicy, clock: any GatewayClock, connections: BrokerConnections, logger: Logger) {
        self.base = base
        self.accessPolicy = accessPolicy
        self.clock = clock
        self.connections = connections
        self.logger = logger
        store = Self.openStore(base, logger: logger)
    }

    /// The shared store's pools of `configuration` (nil without `store.backend: postgres`).
    static func openStore(_ configuration: GatewayConfiguration, logger: Logger) -> StoreClients? {
        configuration.store.postgresSettings.map { settings in
            StoreClients(
                data: PostgresStoreClient(settings: settings, logger: logger),
                leases: configuration.cluster.isClustered ? PostgresStoreClient(settings: settings, maximumConnections: 2, logger: logger) : nil)
        }
    }

    /// The service group of `dead`'s stand-in, adopted by `adopter` under `incarnation`
    /// (``AdoptionService``): the run's services, then the wait for its resumed session's
    /// backlog, whose end stops the group (it hands over and leaves).
    func standInGroup(of dead: LeaseMember, incarnation: String, adopter: String) throws -> ServiceGroup {
        let run = HostedRun.standIn(of: dead, incarnation: incarnation, adopter: adopter, base: base, logger: logger)
        // Pools of its own, run by its own service: shared, the adopter's lease statements
        // queued behind the stand-in's offering heartbeats (docs/scale-out.md, Not done yet).
        let store = Self.openStore(base, logger: run.logger)
        let assembled = try assembleRun(run, store: store)
        var services = assembled.services
        if let store {
            let service = SharedStoreService(client: store.data, leaseClient: store.leases, health: assembled.parts.operations.health, clock: clock, logger: run.logger)
            services.insert(.init(service: service), at: 0)
        }
        if let markTopic = run.backlogMark, let subscriptions = assembled.parts.partitionSubscriptions {
            let mark = StandInService(
                ownership: assembled.parts.ownership, subscribed: assembled.subscribed, subscriptions: subscriptions, markTopic: markTopic,
                connection: assembled.parts.connection, clock: clock, logger: run.logger)
            services.append(.init(service: mark, successTerminationBehavior: .gracefullyShutdownGroup))
        }
        return assembled.group(services, shutdownSignals: [])
    }
}
