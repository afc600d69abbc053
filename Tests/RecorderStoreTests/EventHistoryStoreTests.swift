import Foundation
import PostgresNIO
import PostgresStore
import PostgresTestSupport
import RecorderStore
import TelemetryCore
import Testing

/// The event history checks (``EventHistoryConformance``) against the recorder's SQLite file.
@Suite("SQLite event history")
struct SQLiteEventHistoryTests {
    private static func store() throws -> RecorderDatabase {
        try RecorderDatabase(path: FileManager.default.temporaryDirectory.appendingPathComponent("history-\(UUID().uuidString)/recorder.sqlite").path)
    }

    @Test("a replay's rows are stored once") func deduplicates() async throws { try await EventHistoryConformance.deduplicates(Self.store()) }
    @Test("pages newest first across days, by device, family and range") func pages() async throws {
        try await EventHistoryConformance.pagesAcrossDays(Self.store())
    }
    @Test("pruning removes what is older than the cut-off") func prunes() async throws { try await EventHistoryConformance.prunes(Self.store()) }
    @Test("no clock of its own: retention is cut on the gateway's") func noStoreClock() async throws {
        #expect(try await Self.store().storeTime() == nil)
    }
}

/// The same checks on PostgreSQL (`WG_TEST_POSTGRES_URL`), a new database each, and what only
/// the partitioned table does: daily partitions, and a detach that a long reader does not turn
/// into a stall of inserts.
@Suite("PostgreSQL event history", .enabled(if: TestPostgres.url != nil, Comment(rawValue: TestPostgres.skipReason)))
struct PostgresEventHistoryTests {
    private static func history(_ check: @Sendable @escaping (PostgresEventHistoryStore) async throws -> Void) async throws {
        try await TestPostgres.withStore { try await check(PostgresEventHistoryStore($0)) }
    }

    @Test("a replay's rows are stored once") func deduplicates() async throws { try await Self.history(EventHistoryConformance.deduplicates) }
    @Test("pages newest first across partitions, by device, family and range") func pages() async throws {
        try await Self.history(EventHistoryConformance.pagesAcrossDays)
    }
    @Test("pruning detaches and drops whole days; answers start at the cut-off") func prunes() async throws {
        try await Self.withDatabase { store, session in
            try await EventHistoryConformance.prunes(store)
            // Days 0 and 1 were wholly before the cut-off: gone; days 2, 3 and 4 are left.
            let first = Int64(EventHistoryConformance.day / 86_400)
            #expect(try await Self.names(session, Self.attached) == [first + 2, first + 3, first + 4].map { "event_history_d\($0)" })
            #expect(try await Self.names(session, Self.dayTables).count == 3)
        }
    }

    @Test("the store's clock is the server's") func storeClock() async throws {
        try await Self.history { store in
            let time = try #require(try await store.storeTime())
            #expect(abs(time - Date().timeIntervalSince1970) < 60)
        }
    }

    @Test("inserts go on while a detach waits for a long reader of the partition")
    func detachDoesNotStallInserts() async throws {
        // A lock timeout far beyond the test's steps, so the detach still waits when the insert
        // returns unless the insert waited for it.
        try await Self.withDatabase(lockTimeout: 60) { store, session in
            let day = EventHistoryConformance.day
            _ = try await store.insertEvents([EventHistoryConformance.row(at: day - 100, id: EventHistoryConformance.id(1))])
            _ = try await store.insertEvents([EventHistoryConformance.row(at: day + 100, id: EventHistoryConformance.id(2))])
            // A dashboard query that reads the old day inside a long transaction.
            try await session.query("BEGIN", logger: Self.logger)
            try await session.query("SELECT count(*) FROM event_history WHERE event_time < to_timestamp(\(day))", logger: Self.logger)
            // The detach waits for the reader (until its lock timeout, or until the reader ends)...
            let pruning = Task { try await store.pruneEvents(before: day) }
            #expect(try await Self.detachWaits(session), "the detach never waited for the reader")
            // ...and an insert made meanwhile is not held up by it: it returns while the detach
            // still waits (held up, it would return only once the reader ended).
            #expect(try await store.insertEvents([EventHistoryConformance.row(at: day + 200, id: EventHistoryConformance.id(3))]) == 1)
            #expect(try await Self.detachRunning(session), "the insert returned only after the detach stopped waiting")
            try await session.query("COMMIT", logger: Self.logger)
            _ = try? await pruning.value
            // With the reader gone the next pass finishes the detach and drops the day.
            try await store.pruneEvents(before: day)
            let old = "event_history_d\(Int64(day / 86_400) - 1)"
            #expect(try await !Self.names(session, Self.attached).contains(old))
            #expect(try await !Self.names(session, Self.dayTables).contains(old))
            #expect(try await EventHistoryConformance.allEvents(store, EventHistoryConformance.watch, page: 10).map(\.eventId) == [3, 2].map(EventHistoryConformance.id))
        }
    }

    private static let logger = Logger(label: "history-test")
    /// The partitions attached to `event_history`.
    static let attached: PostgresQuery =
        "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'event_history'::regclass ORDER BY 1"
    /// Every day table, attached or not.
    static let dayTables: PostgresQuery = #"SELECT relname FROM pg_class WHERE relkind = 'r' AND relname LIKE 'event\_history\_d%' ORDER BY 1"#

    /// Whether a `DETACH PARTITION` is seen waiting within `seconds` (polled, at least once; the
    /// statistics snapshot of the session's transaction is cleared before each look).
    static func detachWaits(_ session: PostgresConnection, within seconds: Double = 5) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        repeat {
            try await session.query("SELECT pg_stat_clear_snapshot()", logger: logger)
            let waiting = try await names(
                session, "SELECT query FROM pg_stat_activity WHERE query LIKE 'ALTER TABLE event_history DETACH%' AND wait_event_type IS NOT NULL")
            if !waiting.isEmpty { return true }
            try await Task.sleep(for: .milliseconds(20))
        } while ContinuousClock.now < deadline
        return false
    }

    /// Whether a `DETACH PARTITION` is still running (one look). It cannot end while the reader's
    /// transaction is open but by its lock timeout, so "still running" means nothing waited for it
    /// to stop; whether it waits at this instant is no test of that: `DETACH … CONCURRENTLY` runs
    /// in two transactions, and a look between them finds it active and waiting on nothing (a CI
    /// run of 2026-11-28 failed so).
    static func detachRunning(_ session: PostgresConnection) async throws -> Bool {
        try await session.query("SELECT pg_stat_clear_snapshot()", logger: logger)
        return try await !names(session, "SELECT query FROM pg_stat_activity WHERE query LIKE 'ALTER TABLE event_history DETACH%' AND state = 'active'").isEmpty
    }

    /// The names a query of one text column returns.
    static func names(_ session: PostgresConnection, _ query: PostgresQuery) async throws -> [String] {
        var names: [String] = []
        for try await name in try await session.query(query, logger: logger).decode(String.self) { names.append(name) }
        return names
    }

    /// Runs `body` with the history store of a new database and a connection of its own to it.
    static func withDatabase(
        lockTimeout: Double = PostgresEventHistoryStore.defaultLockTimeout,
        _ body: @Sendable @escaping (PostgresEventHistoryStore, PostgresConnection) async throws -> Void
    ) async throws {
        let settings = try await TestPostgres.makeDatabase()
        let client = TestPostgres.client(settings)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            let session = try await PostgresConnection.connect(
                configuration: .init(
                    host: settings.host, port: settings.port, username: settings.user, password: settings.password, database: settings.database, tls: .disable),
                id: 7, logger: logger)
            do {
                try await body(PostgresEventHistoryStore(client, lockTimeout: lockTimeout), session)
                try await session.close()
            } catch {
                try? await session.close()
                throw error
            }
        }
    }
}
