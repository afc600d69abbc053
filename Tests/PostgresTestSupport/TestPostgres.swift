import Foundation
import Logging
import PostgresNIO
import PostgresStore

/// The PostgreSQL the tests use: `WG_TEST_POSTGRES_URL`, a private server scripts/test.sh
/// starts (start_postgres of scripts/lib.sh). Each test gets a database of its own.
public enum TestPostgres {
    /// The server's URL; nil skips the PostgreSQL suites (scripts/test.sh refuses that).
    public static let url: String? = ProcessInfo.processInfo.environment["WG_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }

    /// Why the PostgreSQL suites are skipped.
    public static let skipReason =
        "WG_TEST_POSTGRES_URL is not set: no PostgreSQL to test against (scripts/test.sh starts one; docs/operations.md, Tests and CI)"

    /// A new empty database on the server at `url` (default: ``url``); returns its settings.
    public static func makeDatabase(on url: String? = TestPostgres.url) async throws -> PostgresStoreSettings {
        guard let url, case .success(let server) = PostgresStoreSettings.parse(url) else {
            throw TestPostgresError("WG_TEST_POSTGRES_URL is not a postgres:// URL")
        }
        let name = "wg_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let connection = try await PostgresConnection.connect(
            configuration: .init(host: server.host, port: server.port, username: server.user, password: server.password, database: server.database, tls: .disable),
            id: 1, logger: Logger(label: "test-postgres"))
        do {
            try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: Logger(label: "test-postgres"))
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
        var settings = server
        settings.database = name
        return settings
    }

    /// A client of the database of `settings` (run it while it is used).
    public static func client(_ settings: PostgresStoreSettings, label: String = "test-store") -> PostgresStoreClient {
        PostgresStoreClient(settings: settings, logger: Logger(label: label))
    }

    /// Runs `body` with a client of a new database, its pool running meanwhile.
    public static func withStore<Result: Sendable>(
        on url: String? = TestPostgres.url, _ body: @Sendable (PostgresStoreClient) async throws -> Result
    ) async throws -> Result {
        let client = Self.client(try await makeDatabase(on: url))
        return try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask {
                await client.run()
                return nil
            }
            defer { group.cancelAll() }
            return try await body(client)
        }
    }
}

/// A test set-up failure.
public struct TestPostgresError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
