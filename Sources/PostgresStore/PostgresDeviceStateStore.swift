import Foundation
import PostgresNIO
import RecorderStore
import TelemetryCore

/// Device snapshots and ownership in PostgreSQL, shared by every instance of a cluster
/// (docs/scale-out.md, *The store*): one `device_owner` row per device holds its owner, the
/// owner's epoch and the latest snapshot (JSON). Epochs are decided by the database: a claim
/// is one `INSERT … ON CONFLICT DO UPDATE SET epoch = epoch + 1`, so claims from any number of
/// connections at once get distinct, strictly increasing epochs, and a fenced save is an
/// `UPDATE … WHERE epoch = $claimed` that writes nothing once a later claim committed.
public final class PostgresDeviceStateStore: DeviceSnapshotStoring {
    private let store: PostgresStoreClient

    /// The store behind `store`.
    public init(_ store: PostgresStoreClient) {
        self.store = store
    }

    /// The URL without its password.
    public var location: String { store.location }

    /// The server's clock: shared by every instance, so `state.retention` is cut on it.
    public func storeTime() async throws -> Double? { try await store.serverTime() }

    /// Writes snapshots whoever owns the devices (a device never claimed keeps epoch 0).
    public func save(_ snapshots: [(device: DeviceID, snapshot: DeviceSnapshot)]) async throws {
        guard !snapshots.isEmpty else { return }
        let (devices, dates, texts) = try Self.columns(snapshots.map { ($0.device, $0.snapshot) })
        _ = try await store.withConnection { connection in
            try await connection.query(
                """
                INSERT INTO device_owner (device, last_seen, snapshot)
                SELECT u.device, u.last_seen, convert_to(u.snapshot, 'UTF8')
                FROM unnest(\(devices)::text[], \(dates)::float8[], \(texts)::text[]) AS u(device, last_seen, snapshot)
                ON CONFLICT (device) DO UPDATE SET last_seen = excluded.last_seen, snapshot = excluded.snapshot
                """, logger: store.logger)
        }
    }

    /// A device's stored snapshot, or nil when none is stored.
    public func snapshot(of device: DeviceID) async throws -> DeviceSnapshot? {
        try await store.withConnection { connection in
            var text: String?
            for try await stored in try await connection.query(
                "SELECT convert_from(snapshot, 'UTF8') FROM device_owner WHERE device = \(device.rawValue) AND snapshot IS NOT NULL",
                logger: store.logger
            ).decode(String.self) {
                text = stored
            }
            return try text.map(Self.decode)
        }
    }

    /// The ids of every device with a stored snapshot.
    public func devices() async throws -> [DeviceID] {
        try await store.withConnection { connection in
            var devices: [DeviceID] = []
            for try await name in try await connection.query(
                "SELECT device FROM device_owner WHERE snapshot IS NOT NULL", logger: store.logger
            ).decode(String.self) {
                if let device = DeviceID(name) { devices.append(device) }
            }
            return devices
        }
    }

    /// Clears snapshots not updated since `cutoff`; the rows (and their epochs) stay.
    @discardableResult
    public func prune(lastSeenBefore cutoff: Double) async throws -> Int {
        try await store.withConnection { connection in
            try await PostgresRecorderStore.single(
                Int64.self,
                connection.query(
                    """
                    WITH cleared AS (
                        UPDATE device_owner SET snapshot = NULL, last_seen = NULL WHERE last_seen < \(cutoff) AND snapshot IS NOT NULL RETURNING 1
                    ) SELECT count(*) FROM cleared
                    """, logger: store.logger)
            ).map { Int($0) } ?? 0
        }
    }

    /// Makes `instance` the owner under the next epoch and returns the stored snapshot.
    public func claim(_ device: DeviceID, instance: String) async throws -> DeviceClaim {
        try await store.withConnection { connection in
            var claimed: (Int64, String?)?
            for try await row in try await connection.query(
                """
                INSERT INTO device_owner (device, epoch, instance) VALUES (\(device.rawValue), 1, \(instance))
                ON CONFLICT (device) DO UPDATE SET epoch = device_owner.epoch + 1, instance = excluded.instance
                RETURNING epoch, convert_from(snapshot, 'UTF8')
                """, logger: store.logger
            ).decode((Int64, String?).self) {
                claimed = row
            }
            guard let (epoch, text) = claimed else { throw PostgresStoreError("the claim of \(device) returned no epoch") }
            return DeviceClaim(epoch: epoch, snapshot: try text.map(Self.decode))
        }
    }

    /// Writes the snapshots still under their device's current epoch, in one statement; reports
    /// the others with the owner that holds them now.
    public func save(fenced snapshots: [FencedSnapshot]) async throws -> [DeviceID: DeviceOwnership] {
        guard !snapshots.isEmpty else { return [:] }
        let (devices, dates, texts) = try Self.columns(snapshots.map { ($0.device, $0.snapshot) })
        let epochs = snapshots.map(\.epoch)
        return try await store.withConnection { connection in
            var refused: [DeviceID: DeviceOwnership] = [:]
            // The outer SELECT sees the rows as they were before the UPDATE: for a refused write
            // that is the owner whose later claim fenced it.
            for try await (name, instance, epoch) in try await connection.query(
                """
                WITH w AS (
                    SELECT * FROM unnest(\(devices)::text[], \(epochs)::int8[], \(dates)::float8[], \(texts)::text[]) AS w(device, epoch, last_seen, snapshot)
                ), written AS (
                    UPDATE device_owner o SET last_seen = w.last_seen, snapshot = convert_to(w.snapshot, 'UTF8')
                    FROM w WHERE o.device = w.device AND o.epoch = w.epoch RETURNING o.device
                )
                SELECT w.device, COALESCE(o.instance, ''), COALESCE(o.epoch, 0) FROM w LEFT JOIN device_owner o ON o.device = w.device
                WHERE w.device NOT IN (SELECT device FROM written)
                """, logger: store.logger
            ).decode((String, String, Int64).self) {
                if let device = DeviceID(name) { refused[device] = DeviceOwnership(instance: instance, epoch: epoch) }
            }
            return refused
        }
    }

    /// Who owns `device` now, or nil when it was never claimed (a row written unfenced only has
    /// epoch 0 and no owner).
    public func owner(of device: DeviceID) async throws -> DeviceOwnership? {
        try await store.withConnection { connection in
            var owner: DeviceOwnership?
            for try await (instance, epoch) in try await connection.query(
                "SELECT instance, epoch FROM device_owner WHERE device = \(device.rawValue) AND epoch > 0", logger: store.logger
            ).decode((String, Int64).self) {
                owner = DeviceOwnership(instance: instance, epoch: epoch)
            }
            return owner
        }
    }

    private static func columns(_ snapshots: [(DeviceID, DeviceSnapshot)]) throws -> ([String], [Double], [String]) {
        let encoder = JSONEncoder()
        var devices: [String] = []
        var dates: [Double] = []
        var texts: [String] = []
        for (device, snapshot) in snapshots {
            devices.append(device.rawValue)
            dates.append(snapshot.lastSeen)
            texts.append(String(decoding: try encoder.encode(snapshot), as: UTF8.self))
        }
        return (devices, dates, texts)
    }

    private static func decode(_ text: String) throws -> DeviceSnapshot {
        try JSONDecoder().decode(DeviceSnapshot.self, from: Data(text.utf8))
    }
}
