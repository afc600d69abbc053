import TelemetryCore

/// What the gateway needs of a device snapshot store: each device's latest ``DeviceSnapshot``.
///
/// SQLite (``DeviceStateStore``, single mode: one instance owns every device) and PostgreSQL
/// (`PostgresLeasedStateStore`, shared by a cluster, where a write is fenced by the lease of the
/// device's ownership partition: docs/scale-out.md, *Ownership*).
public protocol DeviceSnapshotStoring: Sendable {
    /// Where the store is, for logs (a file path, or a URL without its password).
    var location: String { get }

    /// Writes snapshots, replacing each device's previous one, in one transaction. Clustered,
    /// only those whose partition this instance still holds are written.
    func save(_ snapshots: [(device: DeviceID, snapshot: DeviceSnapshot)]) async throws

    /// A device's stored snapshot, or nil when none is stored.
    func snapshot(of device: DeviceID) async throws -> DeviceSnapshot?

    /// The ids of every device with a stored snapshot (none when ``handsDevicesOver``: a
    /// partition's devices are listed when it is gained).
    func devices() async throws -> [DeviceID]

    /// Whether other processes take devices over from this store at any moment (the clustered
    /// modes' shared store): it lists no devices (each is looked up at its first frame), and a
    /// frame sent once (a context frame) is written as it comes, not at the next interval, so
    /// that a successor after a death finds it.
    var handsDevicesOver: Bool { get }

    /// The store's own clock (Unix epoch seconds) when several processes share it: the
    /// `state.retention` cut-off is taken on it. Nil for a store only this process writes.
    func storeTime() async throws -> Double?

    /// Removes snapshots not updated since `cutoff` (Unix epoch seconds).
    /// - Returns: how many snapshots were removed.
    @discardableResult
    func prune(lastSeenBefore cutoff: Double) async throws -> Int
}

extension DeviceSnapshotStoring {
    /// A store of this process alone has no clock of its own.
    public func storeTime() async throws -> Double? { nil }

    /// A store of this process alone keeps its devices.
    public var handsDevicesOver: Bool { false }
}
