import Locking
import Logging
import PostgresNIO

/// One pool of connections to the store, replaceable: ``PostgresStoreClient`` keeps one for data
/// and one per lane (``PostgresStoreLane``), and replaces them all when the store stops answering.
final class PostgresConnectionPool: Sendable {
    private let configuration: PostgresClient.Configuration
    /// The pool in use; ``replace()`` makes a new one.
    private let current: LockedState<PostgresClient>
    /// Whether the schema was found up to date on this pool since its last failure.
    private let migrated = LockedState(false)

    /// A pool of at most `maximumConnections` connections; nothing connects before it runs.
    init(configuration base: PostgresClient.Configuration, maximumConnections: Int) {
        var configuration = base
        configuration.options.maximumConnections = maximumConnections
        self.configuration = configuration
        current = LockedState(PostgresClient(configuration: configuration))
    }

    /// The driver's pool in use now (to run it).
    var client: PostgresClient { current.withLock { $0 } }

    /// Makes a fresh driver pool, used by every later call; returns it to be run. Calls waiting
    /// on the old one fail at once once its run is cancelled.
    func replace() -> PostgresClient {
        let fresh = PostgresClient(configuration: configuration)
        current.withLock { $0 = fresh }
        migrated.withLock { $0 = false }
        return fresh
    }

    /// Runs `body` on a connection of this pool once the schema is up to date; a failure makes the
    /// next call check the schema again (the server may have been replaced meanwhile).
    func withConnection<Result: Sendable>(logger: Logger, _ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        do {
            return try await client.withConnection { connection in
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
}
