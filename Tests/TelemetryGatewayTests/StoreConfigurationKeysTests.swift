import Foundation
import PostgresStore
import Testing

@testable import TelemetryGateway

/// The `store.*` keys: the backend, PostgreSQL's URL and password file.
@Suite struct StoreConfigurationKeysTests {
    private static func load(_ overrides: [(key: String, value: String)], environment: [String: String] = [:]) throws(ConfigurationError) -> GatewayConfiguration {
        try ConfigurationLoader.load(file: nil, environment: environment, overrides: [("registry.file", "null")] + overrides).configuration
    }

    @Test("defaults: SQLite, no URL, nothing new for the single-node user")
    func defaults() throws {
        let configuration = try Self.load([])
        #expect(configuration.store.backend == .sqlite)
        #expect(configuration.store.url == nil && configuration.store.postgresSettings == nil)
    }

    @Test("postgres from the environment; the password comes from the file and never shows in the key's value")
    func postgres() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pg-password-\(UUID().uuidString)")
        try "s3cret\n".write(to: file, atomically: true, encoding: .utf8)
        let configuration = try Self.load(
            [("store.passwordFile", file.path)],
            environment: ["WG_STORE_BACKEND": "postgres", "WG_STORE_URL": "postgres://gateway@db.example:6543/wearables?sslmode=require"])
        let settings = try #require(configuration.store.postgresSettings)
        #expect(settings.host == "db.example" && settings.port == 6543 && settings.user == "gateway" && settings.database == "wearables")
        #expect(settings.password == "s3cret" && settings.tls == .require)
        let withPassword = try Self.load([("store.backend", "postgres"), ("store.url", "postgresql://gateway:hunter%322@[::1]/wearables")])
        #expect(withPassword.store.postgresSettings?.password == "hunter22")
        #expect(withPassword.store.postgresSettings?.port == 5432 && withPassword.store.postgresSettings?.host == "::1")
        let described = GatewayConfiguration.keys.first { $0.path == "store.url" }?.describe(withPassword)
        #expect(described == "postgres://gateway@[::1]:5432/wearables", "the password is never shown")
    }

    @Test("bad values name the key", arguments: [
        ("store.backend", "mysql", "store.backend", "must be sqlite or postgres"),
        ("store.url", "mysql://a@b/c", "store.url", "must start with postgres://"),
        ("store.url", "postgres://host/db", "store.url", "names no user"),
        ("store.url", "postgres://u@host:99999/db", "store.url", "bad port"),
        ("store.url", "postgres://u@host:5432", "store.url", "names no database"),
        ("store.url", "postgres://u@host/db?sslmode=verify-full", "store.url", "sslmode"),
        ("store.passwordFile", "/nonexistent/pg-password", "store.passwordFile", "does not exist"),
    ])
    func invalid(key: String, value: String, reported: String, message: String) {
        do {
            _ = try Self.load([(key, value)])
            Issue.record("\(key)=\(value) was accepted")
        } catch {
            #expect(error.issues.contains { $0.key == reported && $0.message.contains(message) }, "\(error.issues)")
        }
    }

    @Test("the postgres backend without a URL is refused, naming store.url")
    func postgresNeedsURL() {
        do {
            _ = try Self.load([("store.backend", "postgres")])
            Issue.record("accepted")
        } catch {
            #expect(error.issues.contains { $0.key == "store.url" && $0.message.contains("set store.url") })
        }
    }
}
