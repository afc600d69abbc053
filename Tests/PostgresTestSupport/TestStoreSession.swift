import Logging
import PostgresNIO
import PostgresStore

/// A connection of a test to a test database, for what a test does to the store behind the
/// gateway's back: notify, end the claim listener's session, hold the schema migration lock.
public struct TestStoreSession: Sendable {
    private let connection: PostgresConnection
    private static let logger = Logger(label: "test-store-session")

    /// Connects to the database of `settings`.
    public static func connect(_ settings: PostgresStoreSettings) async throws -> TestStoreSession {
        TestStoreSession(
            connection: try await PostgresConnection.connect(
                configuration: .init(
                    host: settings.host, port: settings.port, username: settings.user, password: settings.password, database: settings.database,
                    tls: .disable),
                id: 3, logger: logger))
    }

    /// Sends `payload` on `channel` (delivered to listeners after every earlier commit).
    public func notify(_ channel: String, _ payload: String) async throws {
        try await connection.query("SELECT pg_notify(\(channel), \(payload))", logger: Self.logger)
    }

    /// Sends `payload` on the claim channel.
    public func notifyClaimChannel(_ payload: String) async throws {
        try await connection.query("SELECT pg_notify(\(PostgresClaimListener.channel), \(payload))", logger: Self.logger)
    }

    /// Ends the sessions of the gateways' claim listeners (`pg_terminate_backend`), as a
    /// restarted server or a cut connection would. Returns how many were ended.
    @discardableResult
    public func terminateClaimListeners() async throws -> Int {
        var ended = 0
        for try await _ in try await connection.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = \(PostgresClaimListener.applicationName)",
            logger: Self.logger)
        {
            ended += 1
        }
        return ended
    }

    /// The server processes serving the claim listeners' sessions (to freeze one with SIGSTOP).
    public func claimListenerProcesses() async throws -> [Int32] {
        var pids: [Int32] = []
        for try await pid in try await connection.query(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = \(PostgresClaimListener.applicationName)",
            logger: Self.logger
        ).decode(Int32.self) {
            pids.append(pid)
        }
        return pids
    }

    /// Holds the schema migration lock in a transaction until ``commit()``: a claim listener
    /// (re)connecting meanwhile waits before it LISTENs.
    public func holdMigrationLock() async throws {
        try await connection.query("BEGIN", logger: Self.logger)
        try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresStoreClient.migrationLockKey))", logger: Self.logger)
    }

    /// Ends the transaction (and the lock it holds).
    public func commit() async throws {
        try await connection.query("COMMIT", logger: Self.logger)
    }

    /// Closes the connection.
    public func close() async {
        try? await connection.close()
    }
}
