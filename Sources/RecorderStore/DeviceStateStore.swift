import Foundation
import GRDB
import TelemetryCore

/// The device state store: each device's latest ``DeviceSnapshot`` as JSON in one SQLite file
/// (`state.path`), so a restarted gateway, or a device returning after eviction, continues
/// where it was (open dive, pose reference, workout session, run timeline, …).
///
/// One row per device, overwritten in place; the shard workers write the devices that changed
/// in one transaction per tick. WAL mode with `synchronous = NORMAL`: a process crash loses
/// nothing written, a power loss may lose the last transactions. Thread-safe (`Sendable`).
public final class DeviceStateStore: Sendable {
    private let pool: DatabasePool
    /// The database file.
    public let path: String

    /// Opens (and creates or migrates) the store at `path`, creating its directory.
    /// - Throws: when the directory cannot be created or the file is not a usable database.
    public init(path: String) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.label = "device-state"
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        pool = try DatabasePool(path: path, configuration: configuration)
        self.path = path
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE device_state (
                        device TEXT PRIMARY KEY,
                        lastSeen REAL NOT NULL,
                        snapshot BLOB NOT NULL
                    ) WITHOUT ROWID;
                    """)
        }
        try migrator.migrate(pool)
    }

    /// Writes snapshots, replacing each device's previous one, in one transaction.
    /// - Parameter snapshots: the devices and their snapshots.
    /// - Throws: when encoding or the write fails (nothing of the batch is written then).
    public func save(_ snapshots: [(device: DeviceID, snapshot: DeviceSnapshot)]) async throws {
        guard !snapshots.isEmpty else { return }
        let encoder = JSONEncoder()
        let rows = try snapshots.map { ($0.device.rawValue, $0.snapshot.lastSeen, try encoder.encode($0.snapshot)) }
        try await pool.write { db in
            let statement = try db.cachedStatement(sql: "INSERT OR REPLACE INTO device_state (device, lastSeen, snapshot) VALUES (?, ?, ?)")
            for (device, lastSeen, data) in rows {
                try statement.execute(arguments: [device, lastSeen, data])
            }
        }
    }

    /// A device's stored snapshot, or nil when none is stored.
    /// - Throws: when the read fails or the stored JSON is not a snapshot.
    public func snapshot(of device: DeviceID) async throws -> DeviceSnapshot? {
        let data = try await pool.read { db in
            try Data.fetchOne(db, sql: "SELECT snapshot FROM device_state WHERE device = ?", arguments: [device.rawValue])
        }
        return try data.map { try JSONDecoder().decode(DeviceSnapshot.self, from: $0) }
    }

    /// The ids of every device with a stored snapshot.
    public func devices() async throws -> [DeviceID] {
        try await pool.read { db in
            try String.fetchAll(db, sql: "SELECT device FROM device_state").compactMap(DeviceID.init)
        }
    }

    /// Removes snapshots not updated since `cutoff` (Unix epoch seconds), devices long gone.
    /// - Returns: how many were removed.
    @discardableResult
    public func prune(lastSeenBefore cutoff: Double) async throws -> Int {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM device_state WHERE lastSeen < ?", arguments: [cutoff])
            return db.changesCount
        }
    }
}
