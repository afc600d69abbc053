import Foundation
import Ownership
import PostgresNIO
import RecorderStore
import TelemetryCore

/// Device snapshots of a cluster in PostgreSQL (`device_state`, schema migration 3), each written
/// under the lease of its device's ownership partition (docs/scale-out.md, *Ownership*): a write
/// for a partition this instance no longer holds under the epoch it knows writes nothing. A
/// gained partition's devices are listed from here (``devices(in:)``), so no instance keeps a
/// list of every device.
public final class PostgresLeasedStateStore: DeviceSnapshotStoring {
    private let store: PostgresStoreClient
    private let leases: PostgresLeaseStore
    /// The leases that fence the writes; nil for a single gateway on PostgreSQL, which owns
    /// every device and writes unfenced (like its SQLite file).
    private let ownership: LeasedOwnership?

    /// The snapshots in the store behind `store`, fenced by `ownership`'s leases (nil: unfenced,
    /// a single gateway).
    public init(_ store: PostgresStoreClient, ownership: LeasedOwnership?) {
        self.store = store
        leases = PostgresLeaseStore(store)
        self.ownership = ownership
    }

    /// The URL without its password.
    public var location: String { store.location }

    /// The server's clock: shared by every instance, so `state.retention` is cut on it.
    public func storeTime() async throws -> Double? { try await store.serverTime() }

    /// Writes the snapshots of devices whose partition this instance holds, each under the
    /// partition's epoch, in one statement that locks those leases (``PostgresLeaseStore/save(_:by:)``).
    public func save(_ snapshots: [(device: DeviceID, snapshot: DeviceSnapshot)]) async throws {
        let partitions = ownership?.partitions ?? OwnershipPartitions()
        let encoder = JSONEncoder()
        guard let ownership else {
            let writes = try snapshots.map { device, snapshot in
                LeasedSnapshot(
                    device: device.rawValue, partition: partitions.partition(of: device.rawValue), epoch: 0, lastSeen: snapshot.lastSeen,
                    snapshot: String(decoding: try encoder.encode(snapshot), as: UTF8.self))
            }
            try await leases.saveUnfenced(writes)
            return
        }
        let (member, held) = ownership.leases
        var writes: [LeasedSnapshot] = []
        for (device, snapshot) in snapshots {
            let partition = partitions.partition(of: device.rawValue)
            // Not held (warming, or lost since): epoch 0 matches no lease, so the store only makes
            // the device known if it has no row of it, for the partition's holder to take up.
            let epoch = held[partition] ?? 0
            writes.append(
                LeasedSnapshot(
                    device: device.rawValue, partition: partition, epoch: epoch, lastSeen: snapshot.lastSeen,
                    snapshot: String(decoding: try encoder.encode(snapshot), as: UTF8.self)))
        }
        _ = try await leases.save(writes, by: member)
    }

    /// A device's stored snapshot, or nil when none is stored.
    public func snapshot(of device: DeviceID) async throws -> DeviceSnapshot? {
        // Decoded outside the store call: a snapshot that does not decode is not a store failure.
        try await store.withConnection { connection in
            var text: String?
            for try await stored in try await connection.query(
                "SELECT convert_from(snapshot, 'UTF8') FROM device_state WHERE device = \(device.rawValue)", logger: store.logger
            ).decode(String.self) {
                text = stored
            }
            return text
        }.map { try UnreadableSnapshot.decode(Data($0.utf8), of: device) }
    }

    /// Clustered none: a partition's devices are listed when it is gained (``devices(in:)``).
    /// A single gateway: every device with a stored snapshot.
    /// Fenced by the partition leases (clustered), other instances take its devices over.
    public var handsDevicesOver: Bool { ownership != nil }

    public func devices() async throws -> [DeviceID] {
        guard !handsDevicesOver else { return [] }
        return try await store.withConnection { connection in
            var devices: [DeviceID] = []
            for try await name in try await connection.query("SELECT device FROM device_state", logger: store.logger).decode(String.self) {
                if let device = DeviceID(name) { devices.append(device) }
            }
            return devices
        }
    }

    /// The devices with a stored snapshot in `partitions`.
    public func devices(in partitions: [Int]) async throws -> [DeviceID] {
        guard !partitions.isEmpty else { return [] }
        let numbers = partitions.map { Int32($0) }
        return try await store.withConnection { connection in
            var devices: [DeviceID] = []
            for try await name in try await connection.query(
                "SELECT device FROM device_state WHERE partition = ANY(\(numbers)::int4[])", logger: store.logger
            ).decode(String.self) {
                if let device = DeviceID(name) { devices.append(device) }
            }
            return devices
        }
    }

    /// The devices of partitions this instance holds that an instance which had lost their
    /// partition made known (a device first seen just before a hand-over, written after its
    /// taker listed the partition), each returned once (``PostgresLeaseStore/adoptMadeKnown(by:)``).
    /// None for a single gateway.
    public func adoptMadeKnown() async throws -> [DeviceID] {
        guard let ownership else { return [] }
        return try await leases.adoptMadeKnown(by: ownership.leases.member).compactMap { DeviceID($0) }
    }

    /// The retained messages the stored snapshots of `partitions`' devices carry
    /// (``DeviceSnapshot/retainedOutputs``), taken out of the snapshots by the server.
    public func retainedOutputs(in partitions: [Int]) async throws -> [OutboundMessage] {
        guard !partitions.isEmpty else { return [] }
        let numbers = partitions.map { Int32($0) }
        return try await store.withConnection { connection in
            var messages: [OutboundMessage] = []
            let decoder = JSONDecoder()
            for try await text in try await connection.query(
                """
                SELECT retained::text FROM (
                    SELECT convert_from(snapshot, 'UTF8')::jsonb -> 'retainedOutputs' AS retained FROM device_state
                    WHERE partition = ANY(\(numbers)::int4[])
                ) AS stored WHERE jsonb_typeof(retained) = 'array'
                """, logger: store.logger
            ).decode(String.self) {
                messages += try decoder.decode([OutboundMessage].self, from: Data(text.utf8))
            }
            return messages
        }
    }

    /// Removes snapshots not updated since `cutoff`, whoever wrote them.
    @discardableResult
    public func prune(lastSeenBefore cutoff: Double) async throws -> Int {
        try await store.withConnection { connection in
            try await PostgresRecorderStore.single(
                Int64.self,
                connection.query(
                    "WITH gone AS (DELETE FROM device_state WHERE last_seen < \(cutoff) RETURNING 1) SELECT count(*) FROM gone", logger: store.logger)
            ).map { Int($0) } ?? 0
        }
    }
}
