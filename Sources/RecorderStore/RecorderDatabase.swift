import Foundation
import GRDB
import TelemetryCore

/// The historical accelerometer store: every device's recorded 50 Hz samples
/// (`recorder/accelerometer`) in one SQLite file, through GRDB.
///
/// - De-duplicated by (device, identifier, timestamp): a chunk sent twice, or overlapping an
///   earlier one, stores each sample once (`INSERT OR IGNORE` on the primary key).
/// - Queried by wall-clock range (`startDate`), in (startDate, identifier, timestamp) order, a
///   page at a time (keyset pagination), so a 12 h answer never sits in memory at once.
/// - Pruned by ``prune(before:maximumSamples:)``: samples older than the retention window go
///   first, then, while the store holds more than its sample cap, the oldest samples of the
///   device holding the most. Freed pages are reused by later inserts, so the file stays at its
///   high-water size (docs/recorder.md gives the bytes per sample).
///
/// WAL mode: queries read concurrently with the writer. Thread-safe (`Sendable`); the writes of
/// all workers are serialised by GRDB's writer queue.
public final class RecorderDatabase: RecorderStoring {
    /// The file's pool (the event history's table lives in the same file).
    let pool: DatabasePool
    /// The database file.
    public let path: String
    /// The database file, for logs.
    public var location: String { path }

    /// Opens (and creates or migrates) the store at `path`, creating its directory.
    /// - Parameter path: the SQLite file, e.g. `data/recorder.sqlite`.
    /// - Throws: when the directory cannot be created or the file is not a usable database.
    public init(path: String) throws {
        pool = try DatabasePool.gatewayStore(path: path, label: "recorder", migrator: Self.migrator)
        self.path = path
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE recorder_device (
                        key INTEGER PRIMARY KEY,
                        name TEXT NOT NULL UNIQUE,
                        samples INTEGER NOT NULL DEFAULT 0,
                        nextTremorMinute REAL
                    );
                    CREATE TABLE recorded_sample (
                        device INTEGER NOT NULL,
                        identifier INTEGER NOT NULL,
                        timestamp REAL NOT NULL,
                        startDate REAL NOT NULL,
                        x REAL NOT NULL,
                        y REAL NOT NULL,
                        z REAL NOT NULL,
                        PRIMARY KEY (device, identifier, timestamp)
                    ) WITHOUT ROWID;
                    CREATE INDEX recorded_sample_by_date ON recorded_sample (device, startDate);
                    """)
        }
        // The event history (docs/history.md), in the same file: one more table, no second file.
        migrator.registerMigration("v2-event-history") { db in
            try db.execute(
                sql: """
                    CREATE TABLE event_history (
                        event_time REAL NOT NULL,
                        event_id TEXT NOT NULL,
                        device TEXT NOT NULL,
                        family TEXT NOT NULL,
                        payload TEXT NOT NULL,
                        PRIMARY KEY (event_time, event_id)
                    ) WITHOUT ROWID;
                    CREATE INDEX event_history_by_device ON event_history (device, family, event_time);
                    """)
        }
        return migrator
    }

    // MARK: Writing

    /// Stores a chunk's samples, skipping those already stored.
    /// - Parameters:
    ///   - chunk: the decoded, validated chunk.
    ///   - device: the device that sent it.
    /// - Returns: how many samples were new and how many were already stored.
    public func insert(_ chunk: RecordedAccelerometerChunk, device: DeviceID) async throws -> RecorderInsertOutcome {
        try await pool.write { db in
            let key = try Self.deviceKey(db, device)
            let statement = try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO recorded_sample (device, identifier, timestamp, startDate, x, y, z) VALUES (?, ?, ?, ?, ?, ?, ?)")
            // UInt64 identifiers keep their bits in SQLite's signed 64-bit integers.
            let identifier = Int64(bitPattern: chunk.identifier)
            var inserted = 0
            for sample in chunk.samples {
                let acceleration = sample.acceleration
                try statement.execute(arguments: [key, identifier, sample.timestamp, sample.startDate, acceleration.x, acceleration.y, acceleration.z])
                inserted += db.changesCount
            }
            if inserted > 0 {
                try db.execute(sql: "UPDATE recorder_device SET samples = samples + ? WHERE key = ?", arguments: [inserted, key])
            }
            return RecorderInsertOutcome(inserted: inserted, duplicates: chunk.samples.count - inserted)
        }
    }

    /// Persists the first minute whose tremor result is not published yet.
    public func setNextTremorMinute(_ minute: Double, device: DeviceID) async throws {
        try await pool.write { db in
            let key = try Self.deviceKey(db, device)
            try db.execute(sql: "UPDATE recorder_device SET nextTremorMinute = ? WHERE key = ?", arguments: [minute, key])
        }
    }

    /// Deletes samples recorded before `cutoff`, then the oldest samples of the fullest devices
    /// while more than `maximumSamples` are stored.
    /// - Parameters:
    ///   - cutoff: the oldest wall-clock date kept, Unix epoch seconds.
    ///   - maximumSamples: the store's sample cap.
    /// - Returns: how many samples were deleted for age and for the cap.
    public func prune(before cutoff: Double, maximumSamples: Int) async throws -> RecorderPruneOutcome {
        try await pool.write { db in
            var outcome = RecorderPruneOutcome()
            let devices = try Row.fetchAll(db, sql: "SELECT key FROM recorder_device WHERE samples > 0").map { $0["key"] as Int64 }
            for key in devices {
                try db.execute(sql: "DELETE FROM recorded_sample WHERE device = ? AND startDate < ?", arguments: [key, cutoff])
                let deleted = db.changesCount
                if deleted > 0 {
                    outcome.expired += deleted
                    try db.execute(sql: "UPDATE recorder_device SET samples = samples - ? WHERE key = ?", arguments: [deleted, key])
                }
            }
            var total = try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(samples), 0) FROM recorder_device") ?? 0
            while total > maximumSamples {
                guard let row = try Row.fetchOne(db, sql: "SELECT key, samples FROM recorder_device ORDER BY samples DESC LIMIT 1") else { break }
                let key: Int64 = row["key"]
                let held: Int = row["samples"]
                let excess = min(total - maximumSamples, held)
                guard excess > 0 else { break }
                // The date of the excess-th oldest sample bounds the delete (ties may take a few more).
                guard
                    let bound = try Double.fetchOne(
                        db, sql: "SELECT startDate FROM recorded_sample WHERE device = ? ORDER BY startDate LIMIT 1 OFFSET ?",
                        arguments: [key, excess - 1])
                else { break }
                try db.execute(sql: "DELETE FROM recorded_sample WHERE device = ? AND startDate <= ?", arguments: [key, bound])
                let deleted = db.changesCount
                outcome.overCapacity += deleted
                total -= deleted
                try db.execute(sql: "UPDATE recorder_device SET samples = samples - ? WHERE key = ?", arguments: [deleted, key])
                if deleted == 0 { break }
            }
            return outcome
        }
    }

    // MARK: Reading

    /// One page of a device's samples in `[from, to]`, after `cursor`.
    /// - Parameters:
    ///   - device: the device.
    ///   - from: the first date included.
    ///   - to: the last date included.
    ///   - cursor: the last sample of the previous page (nil: from the start).
    ///   - limit: the most samples returned.
    /// - Returns: up to `limit` samples in (startDate, identifier, timestamp) order.
    public func samples(
        of device: DeviceID, from: Double, to: Double, after cursor: StoredRecorderSample? = nil, limit: Int
    ) async throws -> [StoredRecorderSample] {
        try await pool.read { db in
            guard let key = try Self.existingDeviceKey(db, device) else { return [] }
            let rows: [Row]
            if let cursor {
                rows = try Row.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT identifier, timestamp, startDate, x, y, z FROM recorded_sample
                            WHERE device = ? AND startDate BETWEEN ? AND ? AND (startDate, identifier, timestamp) > (?, ?, ?)
                            ORDER BY startDate, identifier, timestamp LIMIT ?
                            """),
                    arguments: [
                        key, from, to, cursor.sample.startDate, Int64(bitPattern: cursor.identifier), cursor.sample.timestamp, limit,
                    ])
            } else {
                rows = try Row.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT identifier, timestamp, startDate, x, y, z FROM recorded_sample
                            WHERE device = ? AND startDate BETWEEN ? AND ? ORDER BY startDate, identifier, timestamp LIMIT ?
                            """),
                    arguments: [key, from, to, limit])
            }
            return rows.map(Self.sample)
        }
    }

    /// A device's samples in `[from, to)` (one minute for the tremor analysis), in order.
    public func samples(of device: DeviceID, from: Double, before end: Double) async throws -> [RecordedAccelerometerSample] {
        try await pool.read { db in
            guard let key = try Self.existingDeviceKey(db, device) else { return [] }
            let rows = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT identifier, timestamp, startDate, x, y, z FROM recorded_sample
                        WHERE device = ? AND startDate >= ? AND startDate < ? ORDER BY startDate, identifier, timestamp
                        """),
                arguments: [key, from, end])
            return rows.map { Self.sample($0).sample }
        }
    }

    /// The starts of the minutes in `[from, to)` holding at least one sample of the device.
    public func minutesWithData(of device: DeviceID, from: Double, before end: Double) async throws -> [Double] {
        try await pool.read { db in
            guard let key = try Self.existingDeviceKey(db, device) else { return [] }
            var minutes: [Double] = []
            var next = from
            // Jumps from sample to sample through the date index instead of scanning the range.
            while next < end,
                let date = try Double.fetchOne(
                    db, sql: "SELECT MIN(startDate) FROM recorded_sample WHERE device = ? AND startDate >= ? AND startDate < ?",
                    arguments: [key, next, end])
            {
                let minute = TremorMinuteSchedule.minute(containing: date)
                minutes.append(minute)
                next = minute + 60
            }
            return minutes
        }
    }

    /// What the store remembers of a device: its newest sample date and the next tremor minute.
    public func deviceState(of device: DeviceID) async throws -> RecorderDeviceState? {
        try await pool.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT key, nextTremorMinute FROM recorder_device WHERE name = ?", arguments: [device.rawValue])
            else { return nil }
            let key: Int64 = row["key"]
            let newest = try Double.fetchOne(db, sql: "SELECT MAX(startDate) FROM recorded_sample WHERE device = ?", arguments: [key])
            return RecorderDeviceState(newestSampleDate: newest, nextTremorMinute: row["nextTremorMinute"])
        }
    }

    /// The number of stored samples and devices, and the file's size in bytes (with its WAL).
    public func statistics() async throws -> RecorderStatistics {
        let counts = try await pool.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(samples), 0) FROM recorder_device") ?? 0,
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM recorder_device WHERE samples > 0") ?? 0
            )
        }
        let bytes = [path, path + "-wal"].reduce(0) { total, file in
            total + ((try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0)
        }
        return RecorderStatistics(samples: counts.0, devices: counts.1, fileBytes: bytes)
    }

    // MARK: Helpers

    private static func deviceKey(_ db: Database, _ device: DeviceID) throws -> Int64 {
        if let key = try existingDeviceKey(db, device) { return key }
        try db.execute(sql: "INSERT INTO recorder_device (name) VALUES (?)", arguments: [device.rawValue])
        return db.lastInsertedRowID
    }

    private static func existingDeviceKey(_ db: Database, _ device: DeviceID) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT key FROM recorder_device WHERE name = ?"), arguments: [device.rawValue])
    }

    private static func sample(_ row: Row) -> StoredRecorderSample {
        StoredRecorderSample(
            identifier: UInt64(bitPattern: row["identifier"] as Int64),
            sample: RecordedAccelerometerSample(
                timestamp: row["timestamp"], startDate: row["startDate"], acceleration: Vector3(x: row["x"], y: row["y"], z: row["z"])))
    }
}
