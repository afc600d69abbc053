import Foundation
import GRDB
import Locking
import TelemetryCore

/// The device state store: each device's latest ``DeviceSnapshot`` as JSON in one SQLite file
/// (`state.path`), so a restarted gateway, or a device returning after eviction, continues
/// where it was (open dive, pose reference, workout session, run timeline, …).
///
/// One row per device, overwritten in place; the shard workers write the devices that changed
/// in one transaction per tick. WAL mode with `synchronous = NORMAL`: a process crash loses
/// nothing written, a power loss may lose the last transactions. Thread-safe (`Sendable`).
///
/// A file that cannot be opened as this store (not a database, damaged, a directory, not
/// writable) is moved aside at open and a fresh store takes its place: the gateway loses the
/// stored states, never its start (``onMovedAside`` says where the file went).
public final class DeviceStateStore: DeviceSnapshotStoring {
    /// The database file.
    public let path: String
    /// The database file, for logs.
    public var location: String { path }
    /// The wall clock, for the name of a file moved aside.
    private let now: @Sendable () -> Date
    /// Told where an unusable file went and why it was unusable, before the fresh store opens.
    private let onMovedAside: @Sendable (_ movedTo: String, _ error: any Error) -> Void
    /// Opened on first use, on ``openQueue``.
    private let pool = LockedState<DatabasePool?>(nil)
    /// Opening touches the disk (WAL set-up, migration); it happens here rather than on the
    /// caller's thread, which may be one of Swift's few cooperative threads.
    private static let openQueue = DispatchQueue(label: "device-state-open")

    /// Prepares the store at `path`, creating its directory; the file is opened on first use.
    /// - Parameters:
    ///   - path: the SQLite file.
    ///   - now: the wall clock (names a file moved aside, `state.sqlite.corrupt-20261123T091500Z`).
    ///   - onMovedAside: called when an unusable file was moved aside (see the type's description).
    /// - Throws: when the directory cannot be created.
    public init(
        path: String, now: @escaping @Sendable () -> Date = { Date() },
        onMovedAside: @escaping @Sendable (_ movedTo: String, _ error: any Error) -> Void = { _, _ in }
    ) throws {
        // Made here, so a bad `state.path` stops the start with its name rather than the first write.
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.path = path
        self.now = now
        self.onMovedAside = onMovedAside
    }

    private func database() async throws -> DatabasePool {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<DatabasePool, any Error>) in
            Self.openQueue.async {
                continuation.resume(with: Result { try self.openIfNeeded() })
            }
        }
    }

    /// Held across the open (on ``openQueue``, off the cooperative pool), so concurrent first
    /// uses open the file once.
    private func openIfNeeded() throws -> DatabasePool {
        try pool.withLock { pool in
            if let pool { return pool }
            let opened: DatabasePool
            do {
                opened = try open()
            } catch {
                // Not retried in a loop: a second failure on a fresh file is not the file's fault.
                guard let movedTo = try StoreFileQuarantine(path: path).moveAside(after: error, at: now()) else { throw error }
                onMovedAside(movedTo, error)
                opened = try open()
            }
            pool = opened
            return opened
        }
    }

    private func open() throws -> DatabasePool {
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
        // Ownership epochs (DeviceSnapshotStoring): kept apart from the snapshots, so pruning a
        // snapshot never lets a device's epoch start again.
        migrator.registerMigration("v2") { db in
            try db.execute(
                sql: """
                    CREATE TABLE device_owner (
                        device TEXT PRIMARY KEY,
                        epoch INTEGER NOT NULL,
                        instance TEXT NOT NULL
                    ) WITHOUT ROWID;
                    """)
        }
        return try DatabasePool.gatewayStore(path: path, label: "device-state", migrator: migrator)
    }

    /// Writes snapshots, replacing each device's previous one, in one transaction.
    /// - Parameter snapshots: the devices and their snapshots.
    /// - Throws: when encoding or the write fails (nothing of the batch is written then).
    public func save(_ snapshots: [(device: DeviceID, snapshot: DeviceSnapshot)]) async throws {
        guard !snapshots.isEmpty else { return }
        // Encoded on the database's writer thread, not the caller's: a worker's task runs on
        // Swift's small cooperative pool, which JSON encoding of many snapshots would hold up.
        try await database().write { db in
            let encoder = JSONEncoder()
            let statement = try db.cachedStatement(sql: "INSERT OR REPLACE INTO device_state (device, lastSeen, snapshot) VALUES (?, ?, ?)")
            for (device, snapshot) in snapshots {
                try statement.execute(arguments: [device.rawValue, snapshot.lastSeen, try encoder.encode(snapshot)])
            }
        }
    }

    /// A device's stored snapshot, or nil when none is stored.
    /// - Throws: when the read fails; ``UnreadableSnapshot`` when the stored JSON is not a snapshot.
    public func snapshot(of device: DeviceID) async throws -> DeviceSnapshot? {
        try await database().read { db in
            try Data.fetchOne(db, sql: "SELECT snapshot FROM device_state WHERE device = ?", arguments: [device.rawValue])
        }.map { try UnreadableSnapshot.decode($0, of: device) }
    }

    /// The ids of every device with a stored snapshot.
    public func devices() async throws -> [DeviceID] {
        try await database().read { db in
            try String.fetchAll(db, sql: "SELECT device FROM device_state").compactMap(DeviceID.init)
        }
    }

    /// Removes snapshots not updated since `cutoff` (Unix epoch seconds), devices long gone.
    /// - Returns: how many were removed.
    @discardableResult
    public func prune(lastSeenBefore cutoff: Double) async throws -> Int {
        try await database().write { db in
            try db.execute(sql: "DELETE FROM device_state WHERE lastSeen < ?", arguments: [cutoff])
            return db.changesCount
        }
    }
}
