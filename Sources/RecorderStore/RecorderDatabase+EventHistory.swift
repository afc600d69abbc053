import GRDB
import TelemetryCore

/// The event history in the recorder's SQLite file: table `event_history`, keyed by
/// (event_time, event_id) with `INSERT OR IGNORE`, payloads as JSON text (SQLite's JSON
/// functions read them: docs/history.md has the queries).
extension RecorderDatabase: EventHistoryStoring {
    /// Stores rows in one transaction, skipping those already stored.
    public func insertEvents(_ rows: [EventHistoryRow]) async throws -> Int {
        guard !rows.isEmpty else { return 0 }
        return try await pool.write { db in
            let statement = try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO event_history (event_time, event_id, device, family, payload) VALUES (?, ?, ?, ?, ?)")
            var inserted = 0
            for row in rows {
                try statement.execute(arguments: [row.eventTime, row.eventId, row.device.rawValue, row.family, String(decoding: row.payload, as: UTF8.self)])
                inserted += db.changesCount
            }
            return inserted
        }
    }

    /// One page of a device's events in `[from, to]`, newest first, after `cursor`.
    public func events(
        of device: DeviceID, family: String?, from: Double, to: Double, after cursor: EventHistoryCursor?, limit: Int
    ) async throws -> [EventHistoryRow] {
        try await pool.read { db in
            // Before the cursor in (event_time, event_id) order, written out: SQLite compares row
            // values too, but the index is used for a plain range on event_time.
            var sql = "SELECT family, event_time, event_id, payload FROM event_history WHERE device = ? AND event_time BETWEEN ? AND ?"
            var arguments: StatementArguments = [device.rawValue, from, to]
            if let family {
                sql += " AND family = ?"
                arguments += [family]
            }
            if let cursor {
                sql += " AND (event_time < ? OR (event_time = ? AND event_id < ?))"
                arguments += [cursor.eventTime, cursor.eventTime, cursor.eventId]
            }
            sql += " ORDER BY event_time DESC, event_id DESC LIMIT ?"
            arguments += [limit]
            return try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments).map { row in
                EventHistoryRow(
                    device: device, family: row["family"], eventTime: row["event_time"], eventId: row["event_id"],
                    payload: Array((row["payload"] as String).utf8))
            }
        }
    }

    /// Deletes the events older than `cutoff`.
    /// - Returns: how many rows were deleted.
    @discardableResult
    public func pruneEvents(before cutoff: Double) async throws -> Int {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM event_history WHERE event_time < ?", arguments: [cutoff])
            return db.changesCount
        }
    }
}
