import Locking
import PostgresNIO
import RecorderStore
import TelemetryCore

/// The event history in PostgreSQL, shared by every instance (docs/history.md).
///
/// - Rows live in `event_history`, range-partitioned by `event_time`, one partition per UTC day
///   (`event_history_d<day>`, days since 1970), made as a plain table and then attached: an
///   attach takes only a SHARE UPDATE EXCLUSIVE lock on the parent, which neither inserts nor
///   readers wait for (`CREATE TABLE … PARTITION OF` would take an ACCESS EXCLUSIVE one).
///   ``preparePartitions(around:)`` makes today's and tomorrow's ahead of the first insert.
/// - Unique by (event_time, event_id) with `ON CONFLICT DO NOTHING`: a replay writes nothing twice.
/// - Pruning moves the horizon (every read starts at it), then detaches the partitions wholly
///   before it with `DETACH PARTITION … CONCURRENTLY` under a lock timeout, outside any
///   transaction block, and drops them once detached: inserts never wait for it, and a long
///   dashboard query only delays the detach (retried at the next pass).
public final class PostgresEventHistoryStore: EventHistoryStoring {
    private let store: PostgresStoreClient
    /// Days whose partition is known to be attached; forgotten when an insert finds one gone.
    private let partitions = LockedState<Set<Int64>>([])

    /// Seconds of `event_time` per partition.
    public static let partitionSeconds: Int64 = 86_400
    /// How long a detach, drop or attach waits for a lock by default before giving up until the
    /// next pass, seconds.
    public static let defaultLockTimeout = 2.0
    /// `lock_timeout` of a detach, drop or attach.
    private let lockTimeout: String

    /// The store behind `store`.
    /// - Parameter lockTimeout: seconds a detach, drop or attach waits for a lock.
    public init(_ store: PostgresStoreClient, lockTimeout: Double = PostgresEventHistoryStore.defaultLockTimeout) {
        self.store = store
        self.lockTimeout = "\(Int((lockTimeout * 1000).rounded()))ms"
    }

    /// The URL without its password.
    public var location: String { store.location }

    /// The server's clock: shared by every instance, so retention is cut on it.
    public func storeTime() async throws -> Double? { try await store.serverTime() }

    // MARK: Writing

    /// Stores rows in one statement, skipping those already stored.
    public func insertEvents(_ rows: [EventHistoryRow]) async throws -> Int {
        guard !rows.isEmpty else { return 0 }
        let days = Set(rows.map { Self.day(of: $0.eventTime) })
        let times = rows.map(\.eventTime)
        let ids = rows.map(\.eventId)
        let devices = rows.map(\.device.rawValue)
        let families = rows.map(\.family)
        let payloads = rows.map { String(decoding: $0.payload, as: UTF8.self) }
        for attempt in 0..<2 {
            do {
                return try await store.withConnection { connection in
                    try await attach(days, on: connection)
                    let inserted = try await PostgresRecorderStore.single(
                        Int64.self,
                        connection.query(
                            """
                            WITH added AS (
                                INSERT INTO event_history (event_time, event_id, device, family, payload)
                                SELECT to_timestamp(u.t), u.i, u.d, u.f, u.p::jsonb
                                FROM unnest(\(times)::float8[], \(ids)::text[], \(devices)::text[], \(families)::text[], \(payloads)::text[]) AS u(t, i, d, f, p)
                                ON CONFLICT DO NOTHING RETURNING 1
                            )
                            SELECT count(*) FROM added
                            """, logger: store.logger))
                    return Int(inserted ?? 0)
                }
            } catch let error as PostgresStoreError where attempt == 0 && error.sqlState == "23514" {
                // "no partition of relation found for row": another instance detached a day this
                // one remembered (older than the window); attach it again once.
                partitions.withLock { $0.subtract(days) }
            }
        }
        throw PostgresStoreError("no partition accepts the events' times")
    }

    /// Attaches the partitions of the day of `date` and of the next day, so inserts seldom
    /// attach one themselves (the retention service calls it before each pruning pass).
    public func preparePartitions(around date: Double) async throws {
        let today = Self.day(of: date)
        try await store.withConnection { connection in try await attach([today, today + 1], on: connection) }
    }

    /// Moves the horizon to `cutoff`, finishes detaches a failed pass left pending, detaches the
    /// partitions wholly before the horizon concurrently, and drops every detached one.
    /// Another instance pruning at the same time makes this pass do nothing.
    /// - Returns: how many partitions were dropped.
    @discardableResult
    public func pruneEvents(before cutoff: Double) async throws -> Int {
        try await store.withConnection { connection in
            let logger = store.logger
            try await connection.query("UPDATE event_history_horizon SET cutoff = GREATEST(cutoff, to_timestamp(\(cutoff)))", logger: logger)
            guard
                try await PostgresRecorderStore.single(
                    Bool.self, connection.query("SELECT pg_try_advisory_lock(\(PostgresSchema.historyPruneLock))", logger: logger)) == true
            else { return 0 }
            do {
                let dropped = try await prunePartitions(before: cutoff, on: connection)
                try await connection.query("SELECT pg_advisory_unlock(\(PostgresSchema.historyPruneLock))", logger: logger)
                return dropped
            } catch {
                _ = try? await connection.query("RESET lock_timeout", logger: logger)
                _ = try? await connection.query("SELECT pg_advisory_unlock(\(PostgresSchema.historyPruneLock))", logger: logger)
                throw error
            }
        }
    }

    private func prunePartitions(before cutoff: Double, on connection: PostgresConnection) async throws -> Int {
        let logger = store.logger
        var attached: [(name: String, pending: Bool)] = []
        for try await (name, pending) in try await connection.query(
            "SELECT c.relname, i.inhdetachpending FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'event_history'::regclass",
            logger: logger
        ).decode((String, Bool).self) {
            attached.append((name, pending))
        }
        // Statements of their own, not in a transaction block: DETACH … CONCURRENTLY refuses one.
        try await connection.query(PostgresQuery(unsafeSQL: "SET lock_timeout = '\(lockTimeout)'"), logger: logger)
        for partition in attached {
            guard let day = Self.day(ofPartition: partition.name) else { continue }
            if partition.pending {
                // A detach interrupted in its second phase (a lock timeout) is finished first.
                try await connection.query(PostgresQuery(unsafeSQL: "ALTER TABLE event_history DETACH PARTITION \(partition.name) FINALIZE"), logger: logger)
            } else if Double((day + 1) * Self.partitionSeconds) <= cutoff {
                try await connection.query(PostgresQuery(unsafeSQL: "ALTER TABLE event_history DETACH PARTITION \(partition.name) CONCURRENTLY"), logger: logger)
            }
            partitions.withLock { _ = $0.remove(day) }
        }
        // Every detached day partition, this pass's and those an earlier pass could not drop.
        var detached: [String] = []
        for try await name in try await connection.query(
            """
            SELECT c.relname FROM pg_class c
            WHERE c.relkind = 'r' AND c.relname LIKE 'event\\_history\\_d%' AND c.relnamespace = (SELECT relnamespace FROM pg_class WHERE oid = 'event_history'::regclass)
              AND NOT EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhrelid = c.oid)
            """, logger: logger
        ).decode(String.self) {
            detached.append(name)
        }
        for name in detached where Self.day(ofPartition: name) != nil {
            try await connection.query(PostgresQuery(unsafeSQL: "DROP TABLE \(name)"), logger: logger)
        }
        try await connection.query("RESET lock_timeout", logger: logger)
        return detached.count
    }

    // MARK: Reading

    /// One page of a device's events in `[from, to]`, newest first, after `cursor`, from the
    /// horizon on.
    public func events(
        of device: DeviceID, family: String?, from: Double, to: Double, after cursor: EventHistoryCursor?, limit: Int
    ) async throws -> [EventHistoryRow] {
        try await store.withConnection { connection in
            // Optional filters as NULL parameters: one statement text for every combination.
            let cursorTime = cursor?.eventTime
            let cursorID = cursor?.eventId
            let rows = try await connection.query(
                """
                SELECT family, extract(epoch FROM event_time)::float8, event_id, payload::text FROM event_history
                WHERE device = \(device.rawValue)
                  AND event_time BETWEEN to_timestamp(\(from)) AND to_timestamp(\(to))
                  AND event_time >= (SELECT cutoff FROM event_history_horizon)
                  AND (\(family)::text IS NULL OR family = \(family))
                  AND (\(cursorTime)::float8 IS NULL OR (event_time, event_id) < (to_timestamp(\(cursorTime)), \(cursorID)::text))
                ORDER BY event_time DESC, event_id DESC LIMIT \(limit)
                """, logger: store.logger)
            var events: [EventHistoryRow] = []
            for try await (family, time, id, payload) in rows.decode((String, Double, String, String).self) {
                events.append(EventHistoryRow(device: device, family: family, eventTime: time, eventId: id, payload: Array(payload.utf8)))
            }
            return events
        }
    }

    // MARK: Helpers

    /// Attaches the partitions of `days` not known to be attached, each made as a plain table
    /// first (see the type's notes), under the partition lock every instance takes.
    private func attach(_ days: Set<Int64>, on connection: PostgresConnection) async throws {
        let missing = partitions.withLock { days.subtracting($0) }
        guard !missing.isEmpty else { return }
        let logger = store.logger
        try await connection.query("BEGIN", logger: logger)
        do {
            try await connection.query(PostgresQuery(unsafeSQL: "SET LOCAL lock_timeout = '\(lockTimeout)'"), logger: logger)
            try await connection.query("SELECT pg_advisory_xact_lock(\(PostgresSchema.partitionLock))", logger: logger)
            for day in missing.sorted() {
                let name = Self.partitionName(day)
                let isAttached = try await PostgresRecorderStore.single(
                    Bool.self,
                    connection.query(
                        "SELECT EXISTS (SELECT 1 FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'event_history'::regclass AND c.relname = \(name))",
                        logger: logger))
                if isAttached == true { continue }
                try await connection.query(
                    PostgresQuery(unsafeSQL: "CREATE TABLE IF NOT EXISTS \(name) (LIKE event_history INCLUDING DEFAULTS INCLUDING CONSTRAINTS)"), logger: logger)
                try await connection.query(
                    PostgresQuery(
                        unsafeSQL: """
                            ALTER TABLE event_history ATTACH PARTITION \(name)
                            FOR VALUES FROM (\(Self.timestampLiteral(day * Self.partitionSeconds))) TO (\(Self.timestampLiteral((day + 1) * Self.partitionSeconds)))
                            """), logger: logger)
            }
            try await connection.query("COMMIT", logger: logger)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
        partitions.withLock { $0.formUnion(missing) }
    }

    /// `to_timestamp(<seconds>)`, a partition bound's expression.
    private static func timestampLiteral(_ seconds: Int64) -> String { "to_timestamp(\(seconds))" }

    static func day(of date: Double) -> Int64 { Int64((date / Double(partitionSeconds)).rounded(.down)) }

    /// `event_history_d<day>`, `event_history_dm<day>` before 1970.
    static func partitionName(_ day: Int64) -> String { PostgresSchema.partitionName("event_history_d", day) }

    static func day(ofPartition name: String) -> Int64? { PostgresSchema.partitionNumber("event_history_d", name) }
}
