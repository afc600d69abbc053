import Logging
import PostgresNIO
import PostgresStore

/// A connection of a test to a test database, for what a test does to the store behind the
/// gateway's back: notify, hold the schema migration lock.
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

    /// Holds the schema migration lock in a transaction until ``commit()``: a claim listener
    /// (re)connecting meanwhile waits.
    public func holdMigrationLock() async throws {
        try await connection.query("BEGIN", logger: Self.logger)
        try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresStoreClient.migrationLockKey))", logger: Self.logger)
    }

    /// Locks a device's snapshot row in a transaction until ``commit()``, as a writer outside
    /// the gateway could: a gateway write of that device waits meanwhile, holding what its
    /// statement locked before (its lease row).
    public func holdDeviceRow(_ device: String) async throws {
        try await connection.query("BEGIN", logger: Self.logger)
        try await connection.query("SELECT 1 FROM device_state WHERE device = \(device) FOR UPDATE", logger: Self.logger)
    }

    /// How many statements of this database whose text contains `fragment` wait for a lock now.
    public func waitingForLocks(_ fragment: String) async throws -> Int {
        let rows = try await connection.query(
            """
            SELECT count(*)::int8 FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock' AND strpos(query, \(fragment)) > 0
            """, logger: Self.logger)
        for try await count in rows.decode(Int64.self) { return Int(count) }
        return 0
    }

    /// How many other connections to this database are open now.
    public func otherConnections() async throws -> Int {
        let rows = try await connection.query(
            "SELECT count(*)::int8 FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()", logger: Self.logger)
        for try await count in rows.decode(Int64.self) { return Int(count) }
        return 0
    }

    /// Ends the transaction (and the lock it holds).
    public func commit() async throws {
        try await connection.query("COMMIT", logger: Self.logger)
    }

    /// The keys the output ledger holds (`gateway_output`: topic and event id) of topics ending in
    /// `suffix`.
    public func recordedOutputs(endingIn suffix: String) async throws -> [(topic: String, eventID: String)] {
        let rows = try await connection.query(
            "SELECT topic, event_id FROM gateway_output WHERE topic LIKE \("%" + suffix)", logger: Self.logger)
        var keys: [(topic: String, eventID: String)] = []
        for try await (topic, eventID) in rows.decode((String, String).self) { keys.append((topic, eventID)) }
        return keys
    }

    /// Closes the connection.
    public func close() async {
        try? await connection.close()
    }
}
