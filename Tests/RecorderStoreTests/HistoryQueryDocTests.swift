import Foundation
import GRDB
import Logging
import PostgresNIO
import PostgresStore
import PostgresTestSupport
import TelemetryCore
import Testing

@testable import RecorderStore

/// The SQL docs/history.md gives, and the shipped Grafana dashboard's event history panels, run
/// as written on a few stored events: each must run and find them (a renamed column or family
/// fails here, not in an operator's dashboard).
@Suite("Event history: documented queries")
struct HistoryQueryDocTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The ```sql blocks of docs/history.md whose first line is `-- <dialect>: …`.
    static func documented(_ dialect: String) throws -> [String] {
        let text = try String(contentsOf: repository.appendingPathComponent("docs/history.md"), encoding: .utf8)
        return text.components(separatedBy: "```sql\n").dropFirst().compactMap { block in
            let query = block.components(separatedBy: "\n```")[0]
            return query.hasPrefix("-- \(dialect):") ? query : nil
        }
    }

    /// The raw SQL of the dashboard's PostgreSQL panels, Grafana's time filter made plain SQL.
    static func dashboard() throws -> [String] {
        let data = try Data(contentsOf: repository.appendingPathComponent("config/grafana/wearable-gateway-dashboard.json"))
        let panels = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["panels"] as? [[String: Any]] ?? []
        return panels.flatMap { ($0["targets"] as? [[String: Any]]) ?? [] }.compactMap { $0["rawSql"] as? String }.map {
            $0.replacingOccurrences(of: "$__timeFilter(event_time)", with: "event_time >= now() - interval '30 days'")
        }
    }

    /// Events of watch-ultra-1 and a tennis watch a minute ago: a dive, a stroke, a swing,
    /// presence changes.
    static var rows: [EventHistoryRow] {
        let now = Date().timeIntervalSince1970 - 60
        let ultra = DeviceID("watch-ultra-1")!, tennis = DeviceID("watch-s9-1")!
        func row(_ device: DeviceID, _ family: String, _ id: String, _ json: String) -> EventHistoryRow {
            EventHistoryRow(device: device, family: family, eventTime: now, eventId: id, payload: Array(json.utf8))
        }
        return [
            row(ultra, "submersion/dive", "a1", #"{"eventId":"a1","maxDepth":20.02,"duration":176.667,"endReason":"surfaced","date":\#(now)}"#),
            row(ultra, "connection", "a2", #"{"eventId":"a2","state":"connected","reason":"online","date":\#(now)}"#),
            row(ultra, "headphone/connection", "a3", #"{"eventId":"a3","state":"disconnected","reason":"earRemoved","date":\#(now)}"#),
            row(tennis, "tennis/stroke", "b1", #"{"eventId":"b1","stroke":"forehand","timestamp":52004.1}"#),
            row(tennis, "swing", "b2", #"{"eventId":"b2","contact":true,"timeToContact":0.246}"#),
        ]
    }

    @Test("the PostgreSQL queries and the dashboard's panels answer the stored events",
          .enabled(if: TestPostgres.url != nil, Comment(rawValue: TestPostgres.skipReason)))
    func postgres() async throws {
        let queries = try Self.documented("PostgreSQL") + Self.dashboard()
        #expect(try Self.documented("PostgreSQL").count == 4)
        #expect(try Self.dashboard().count == 4)
        let settings = try await TestPostgres.makeDatabase()
        let client = TestPostgres.client(settings)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            #expect(try await PostgresEventHistoryStore(client).insertEvents(Self.rows) == Self.rows.count)
            let logger = Logger(label: "history-doc")
            let session = try await PostgresConnection.connect(
                configuration: .init(
                    host: settings.host, port: settings.port, username: settings.user, password: settings.password, database: settings.database, tls: .disable),
                id: 9, logger: logger)
            do {
                for query in queries {
                    var count = 0
                    for try await _ in try await session.query(PostgresQuery(unsafeSQL: query), logger: logger) { count += 1 }
                    #expect(count > 0, "no rows from:\n\(query)")
                }
                try await session.close()
            } catch {
                try? await session.close()
                throw error
            }
        }
    }

    @Test("the SQLite queries answer the stored events")
    func sqlite() async throws {
        let queries = try Self.documented("SQLite")
        #expect(queries.count == 3)
        let store = try RecorderDatabase(
            path: FileManager.default.temporaryDirectory.appendingPathComponent("history-doc-\(UUID().uuidString)/recorder.sqlite").path)
        #expect(try await store.insertEvents(Self.rows) == Self.rows.count)
        for query in queries {
            let count = try await store.pool.read { db in try Row.fetchAll(db, sql: query).count }
            #expect(count > 0, "no rows from:\n\(query)")
        }
    }
}
