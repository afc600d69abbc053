import Logging
import PostgresNIO
import PostgresStore

/// A fault for tests: an exclusive lock on a table of a test database, held in a transaction of
/// a connection of its own, so every statement of the gateway on that table waits (and its
/// store deadline passes) until ``release(terminatingWaiters:)``.
public struct TestTableLock: Sendable {
    private let connection: PostgresConnection
    private static let logger = Logger(label: "test-table-lock")

    /// Locks `table` (ACCESS EXCLUSIVE) in the database of `settings`.
    public static func acquire(_ settings: PostgresStoreSettings, table: String) async throws -> TestTableLock {
        let connection = try await PostgresConnection.connect(
            configuration: .init(
                host: settings.host, port: settings.port, username: settings.user, password: settings.password, database: settings.database, tls: .disable),
            id: 2, logger: logger)
        do {
            try await connection.query("BEGIN", logger: logger)
            try await connection.query(PostgresQuery(unsafeSQL: "LOCK TABLE \(table) IN ACCESS EXCLUSIVE MODE"), logger: logger)
        } catch {
            try? await connection.close()
            throw error
        }
        return TestTableLock(connection: connection)
    }

    /// Releases the lock. With `terminatingWaiters`, first ends every other session of the
    /// database waiting for a lock: a client killed while its statement waited is not noticed by
    /// PostgreSQL until the statement ran, so without this a dead process's write would still
    /// be stored once the lock is gone.
    /// - Returns: the number of sessions ended.
    @discardableResult
    public func release(terminatingWaiters: Bool) async throws -> Int {
        var ended = 0
        if terminatingWaiters {
            let rows = try await connection.query(
                """
                SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()
                """, logger: Self.logger)
            for try await _ in rows { ended += 1 }
        }
        try await connection.query("COMMIT", logger: Self.logger)
        try await connection.close()
        return ended
    }
}
