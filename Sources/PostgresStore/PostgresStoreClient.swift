import Locking
import Logging
import PostgresNIO

/// The connection pools to the shared store and its schema: the one place that talks to
/// PostgreSQL for ``PostgresRecorderStore``, ``PostgresDeviceStateStore`` and the leases. A
/// process opens one: a pool for data (snapshots, the output ledger, the history, the
/// recorder), one connection of its own for ``check()``, and a lane per run for its lease
/// statements (``openLane(_:maximumConnections:)``), so that neither a heartbeat nor the check
/// waits for a connection behind data writes, or behind another run's heartbeats.
///
/// ``run()`` must run for as long as the stores are used (the gateway runs it as a service).
/// The schema is brought up to date before the first statement of each store and again after a
/// failure, so a server that is down at start, or that was replaced, is set up once it answers;
/// until then every call throws, and callers retry (docs/recorder.md, *PostgreSQL*).
public final class PostgresStoreClient: Sendable {
    private let configuration: PostgresClient.Configuration
    private let data: PostgresConnectionPool
    private let checks: PostgresConnectionPool
    /// The lanes open now, by id.
    private let lanes = LockedState<[String: PostgresConnectionPool]>([:])
    /// Pools to run (the first of each, and every replacement) or to stop, for ``run()``.
    private let events: AsyncStream<PoolEvent>
    private let eventSink: AsyncStream<PoolEvent>.Continuation
    let logger: Logger
    /// The URL without its password, for logs.
    public let location: String
    /// Where the store is (for a connection outside the pool: ``PostgresClaimListener``).
    let settings: PostgresStoreSettings

    private enum PoolEvent: Sendable {
        case run(key: String, PostgresClient)
        case stop(key: String)
    }

    private static let dataKey = "\u{0}data"
    private static let checkKey = "\u{0}check"

    /// A client of the store at `settings`; nothing connects before ``run()`` and the first call.
    /// - Parameters:
    ///   - settings: where the store is.
    ///   - maximumConnections: the data pool's size.
    ///   - logger: where migrations are logged (the driver's own logging stays off).
    public init(settings: PostgresStoreSettings, maximumConnections: Int = 8, logger: Logger) {
        let tls: PostgresClient.Configuration.TLS =
            switch settings.tls {
            case .disable: .disable
            case .prefer: .prefer(.makeClientConfiguration())
            case .require: .require(.makeClientConfiguration())
            }
        var configuration = PostgresClient.Configuration(
            host: settings.host, port: settings.port, username: settings.user, password: settings.password, database: settings.database, tls: tls)
        configuration.options.connectTimeout = .seconds(5)
        self.configuration = configuration
        data = PostgresConnectionPool(configuration: configuration, maximumConnections: maximumConnections)
        checks = PostgresConnectionPool(configuration: configuration, maximumConnections: 1)
        (events, eventSink) = AsyncStream.makeStream(of: PoolEvent.self)
        eventSink.yield(.run(key: Self.dataKey, data.client))
        eventSink.yield(.run(key: Self.checkKey, checks.client))
        self.logger = logger
        self.settings = settings
        location = settings.location
    }

    /// Runs the pools (and each replacement, and each lane opened meanwhile) until the calling
    /// task is cancelled.
    public func run() async {
        var running: [String: Task<Void, Never>] = [:]
        for await event in events {
            switch event {
            case .run(let key, let client):
                running[key]?.cancel()
                running[key] = Task { await client.run() }
            case .stop(let key):
                running.removeValue(forKey: key)?.cancel()
            }
        }
        for task in running.values { task.cancel() }
    }

    /// Opens a lane: connections of its own for one run's lease statements, run by ``run()``
    /// and replaced with the others by ``reset()``, until ``closeLane(_:)``.
    /// - Parameters:
    ///   - id: the run's incarnation (unique in the process).
    ///   - maximumConnections: the lane's size.
    public func openLane(_ id: String, maximumConnections: Int = 2) -> PostgresStoreLane {
        let pool = PostgresConnectionPool(configuration: configuration, maximumConnections: maximumConnections)
        lanes.withLock { $0[id] = pool }
        eventSink.yield(.run(key: id, pool.client))
        return PostgresStoreLane(id: id)
    }

    /// Closes `lane`: its connections close, its later calls go to the data pool.
    public func closeLane(_ lane: PostgresStoreLane) {
        guard lanes.withLock({ $0.removeValue(forKey: lane.id) }) != nil else { return }
        eventSink.yield(.stop(key: lane.id))
    }

    /// How many lanes are open (a stand-in's closes with it).
    package var openLanes: Int { lanes.withLock { $0.count } }

    /// Replaces every pool with a new one. For a store that stopped answering: calls waiting on
    /// the old pools fail at once (they shut down) instead of waiting for connections they may
    /// never make again after the server went away (seen with postgres-nio 1.33.2 after
    /// `pg_ctl stop -m immediate`: leases waited for ever, also after the restart).
    public func reset() {
        eventSink.yield(.run(key: Self.dataKey, data.replace()))
        eventSink.yield(.run(key: Self.checkKey, checks.replace()))
        for (id, pool) in lanes.withLock({ $0 }) { eventSink.yield(.run(key: id, pool.replace())) }
    }

    /// Whether the store answers, with its schema up to date; throws the reason it does not.
    public func check() async throws {
        _ = try await checks.withConnection(logger: logger) { connection in
            try await connection.query("SELECT 1", logger: logger)
        }
    }

    /// The schema version this build brings the store to.
    public static var schemaVersion: Int { PostgresSchema.migrations.count }

    /// The `pg_advisory_xact_lock` key schema migrations are applied under (a test holds it to
    /// keep a reconnecting claim listener from listening).
    public static var migrationLockKey: Int64 { PostgresSchema.migrationLock }

    /// The schema versions applied to the store, in order.
    public func appliedMigrations() async throws -> [Int] {
        try await withConnection { connection in
            var versions: [Int] = []
            for try await version in try await connection.query("SELECT version FROM wg_schema_migrations ORDER BY version", logger: logger).decode(Int.self) {
                versions.append(version)
            }
            return versions
        }
    }

    /// The server's clock, Unix epoch seconds (`clock_timestamp()`, not the transaction's start):
    /// the one clock every instance sharing the store agrees on, for retention cut-offs.
    public func serverTime() async throws -> Double {
        try await withConnection { connection in
            try await PostgresRecorderStore.single(Double.self, connection.query("SELECT extract(epoch FROM clock_timestamp())::float8", logger: logger))
                ?? 0
        }
    }

    /// Runs `body` on a connection of `lane` (nil, or a lane closed: the data pool) once the
    /// schema is up to date. A failure makes the next call check the schema again (the server
    /// may have been replaced meanwhile).
    func withConnection<Result: Sendable>(on lane: PostgresStoreLane? = nil, _ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        let pool = lane.flatMap { lane in lanes.withLock { $0[lane.id] } } ?? data
        return try await pool.withConnection(logger: logger, body)
    }

    /// Runs `body` in one transaction on a pooled connection (see ``withConnection(_:)``).
    func withTransaction<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        try await withConnection { connection in
            try await connection.query("BEGIN", logger: logger)
            do {
                let result = try await body(connection)
                try await connection.query("COMMIT", logger: logger)
                return result
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
    }
}
