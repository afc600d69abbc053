import Locking
import Logging
import PostgresNIO
import RecorderStore
import TelemetryCore

/// Listens to the store's claim notifications (`LISTEN wg_device_claims`, schema migration 2) on
/// a connection of its own, outside the pool: a listening connection is never handed to another
/// caller (docs/scale-out.md, *Fencing*).
public struct PostgresClaimListener: Sendable {
    /// What a session reports, in order.
    public enum Event: Sendable, Equatable {
        /// LISTEN is in effect; the owner check follows.
        case listening
        /// A claim: notified, or (`checked`) found by the owner check that follows every LISTEN.
        case claim(DeviceClaimNotice, checked: Bool)
        /// A notification on the channel that is not a claim (its payload, for the log).
        case malformed(String)
    }

    private let client: PostgresStoreClient

    /// The `application_name` of the listening connection (`pg_stat_activity`).
    public static let applicationName = "wearable-gateway claim listener"

    /// The channel claims are notified on.
    public static var channel: String { PostgresSchema.claimChannel }

    /// A listener to the store of `client` (its settings; not its pool).
    public init(_ client: PostgresStoreClient) {
        self.client = client
    }

    /// The URL without its password.
    public var location: String { client.location }

    /// One session: connects, brings the schema up to date (the trigger must exist), LISTENs,
    /// then asks once, in one query, who owns each of `claimed()` (read after LISTEN is in
    /// effect, so no claim falls between the two) and reports those another instance owns,
    /// then reports every notification until the connection ends. Every `probeInterval` seconds
    /// it asks the server for `SELECT 1` on the same connection and closes the connection when
    /// no answer came within `probeDeadline`: a server or network that stops answering without
    /// closing the connection (no TCP reset) ends the session too.
    /// - Returns: when the calling task is cancelled.
    /// - Throws: when the connection cannot be made, ends, or stops answering (the caller reconnects).
    public func session(
        instance: String, probeInterval: Double = 5, probeDeadline: Double = 3, claimed: @Sendable () -> [DeviceID], report: @Sendable (Event) -> Void
    ) async throws {
        let settings = client.settings
        let tls: PostgresConnection.Configuration.TLS =
            switch settings.tls {
            case .disable: .disable
            case .prefer: .prefer(try .init(configuration: .makeClientConfiguration()))
            case .require: .require(try .init(configuration: .makeClientConfiguration()))
            }
        var configuration = PostgresConnection.Configuration(
            host: settings.host, port: settings.port, username: settings.user, password: settings.password, database: settings.database, tls: tls)
        configuration.options.connectTimeout = .seconds(5)
        // So operators (and tests) find it in pg_stat_activity.
        configuration.options.additionalStartupParameters = [("application_name", Self.applicationName)]
        let logger = client.logger
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
        } catch {
            throw PostgresStoreError.wrapping(error)
        }
        let watchdog = Task { try await Self.probe(connection, every: probeInterval, deadline: probeDeadline, logger: logger) }
        defer { watchdog.cancel() }
        do {
            try await PostgresSchema.migrate(connection, logger: logger)
            try await connection.listen(on: PostgresSchema.claimChannel) { notifications in
                report(.listening)
                let devices = claimed().map(\.rawValue)
                if !devices.isEmpty {
                    for try await (name, owner, epoch) in try await connection.query(
                        "SELECT device, instance, epoch FROM device_owner WHERE device = ANY(\(devices)::text[]) AND epoch > 0 AND instance <> \(instance)",
                        logger: logger
                    ).decode((String, String, Int64).self) {
                        if let device = DeviceID(name) { report(.claim(DeviceClaimNotice(device: device, owner: DeviceOwnership(instance: owner, epoch: epoch)), checked: true)) }
                    }
                }
                for try await notification in notifications {
                    if let notice = DeviceClaimNotice(payload: notification.payload) {
                        report(.claim(notice, checked: false))
                    } else {
                        report(.malformed(notification.payload))
                    }
                }
            }
        } catch {
            try? await connection.close()
            throw PostgresStoreError.wrapping(error)
        }
        try? await connection.close()
        // The sequence ends without an error only when the task is cancelled.
        if !Task.isCancelled { throw PostgresStoreError("the listening connection ended") }
    }

    /// Asks `connection` for `SELECT 1` every `interval` seconds; closes it when an answer does
    /// not come within `deadline` (which ends the session's LISTEN with an error).
    private static func probe(_ connection: PostgresConnection, every interval: Double, deadline: Double, logger: Logger) async throws {
        while !Task.isCancelled {
            try await Task.sleep(for: .seconds(interval))
            let answered = LockedState(false)
            let timer = Task {
                try await Task.sleep(for: .seconds(deadline))
                if !answered.withLock({ $0 }) {
                    logger.debug("the claim listener's connection did not answer within \(deadline) s; closing it")
                    try? await connection.close()
                }
            }
            defer { timer.cancel() }
            try await connection.query("SELECT 1", logger: logger)
            answered.withLock { $0 = true }
        }
    }
}
