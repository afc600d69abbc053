import Locking
import Logging
import PostgresNIO

/// The connection pool to the shared store and its schema: the one place that talks to
/// PostgreSQL for ``PostgresRecorderStore`` and ``PostgresDeviceStateStore``.
///
/// ``run()`` must run for as long as the stores are used (the gateway runs it as a service).
/// The schema is brought up to date before the first statement of each store and again after a
/// failure, so a server that is down at start, or that was replaced, is set up once it answers;
/// until then every call throws, and callers retry (docs/recorder.md, *PostgreSQL*).
public final class PostgresStoreClient: Sendable {
    private let configuration: PostgresClient.Configuration
    /// The pool in use; ``reset()`` replaces it.
    private let pool: LockedState<PostgresClient>
    /// Pools to run, the first and every replacement, for ``run()``.
    private let pools: AsyncStream<PostgresClient>
    private let poolSink: AsyncStream<PostgresClient>.Continuation
    let logger: Logger
    /// The URL without its password, for logs.
    public let location: String
    /// Where the store is (for a connection outside the pool: ``PostgresClaimListener``).
    let settings: PostgresStoreSettings
    /// Whether the schema was found up to date since the last failure.
    private let migrated = LockedState(false)

    /// A client of the store at `settings`; nothing connects before ``run()`` and the first call.
    /// - Parameters:
    ///   - settings: where the store is.
    ///   - maximumConnections: the pool's size.
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
        configuration.options.maximumConnections = maximumConnections
        configuration.options.connectTimeout = .seconds(5)
        self.configuration = configuration
        let first = PostgresClient(configuration: configuration)
        pool = LockedState(first)
        (pools, poolSink) = AsyncStream.makeStream(of: PostgresClient.self)
        poolSink.yield(first)
        self.logger = logger
        self.settings = settings
        location = settings.location
    }

    /// Runs the pool (and each replacement) until the calling task is cancelled.
    public func run() async {
        var running: Task<Void, Never>?
        for await next in pools {
            running?.cancel()
            running = Task { await next.run() }
        }
        running?.cancel()
    }

    /// Replaces the connection pool with a new one. For a store that stopped answering: calls
    /// waiting on the old pool fail at once (it shuts down) instead of waiting for connections
    /// it may never make again after the server went away (seen with postgres-nio 1.33.2 after
    /// `pg_ctl stop -m immediate`: leases waited for ever, also after the restart).
    public func reset() {
        let fresh = PostgresClient(configuration: configuration)
        pool.withLock { $0 = fresh }
        migrated.withLock { $0 = false }
        poolSink.yield(fresh)
    }

    /// Whether the store answers, with its schema up to date; throws the reason it does not.
    public func check() async throws {
        _ = try await withConnection { connection in
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

    /// Runs `body` on a pooled connection once the schema is up to date. A failure makes the
    /// next call check the schema again (the server may have been replaced meanwhile).
    /// The server's clock, Unix epoch seconds (`clock_timestamp()`, not the transaction's start):
    /// the one clock every instance sharing the store agrees on, for retention cut-offs.
    public func serverTime() async throws -> Double {
        try await withConnection { connection in
            try await PostgresRecorderStore.single(Double.self, connection.query("SELECT extract(epoch FROM clock_timestamp())::float8", logger: logger))
                ?? 0
        }
    }

    func withConnection<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        do {
            return try await pool.withLock({ $0 }).withConnection { connection in
                if !migrated.withLock({ $0 }) {
                    try await PostgresSchema.migrate(connection, logger: logger)
                    migrated.withLock { $0 = true }
                }
                return try await body(connection)
            }
        } catch {
            migrated.withLock { $0 = false }
            throw PostgresStoreError.wrapping(error)
        }
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
