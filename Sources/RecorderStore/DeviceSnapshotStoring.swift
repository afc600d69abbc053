import TelemetryCore

/// What the gateway needs of a device snapshot store (docs/scale-out.md, *The store*): each
/// device's latest ``DeviceSnapshot`` and its owner, fenced by an epoch the store decides.
///
/// SQLite (``DeviceStateStore``, single mode: one instance owns every device) and PostgreSQL
/// (`PostgresDeviceStateStore`, shared by a cluster) keep the same promises:
/// - ``claim(_:instance:)`` makes `instance` the device's owner under an epoch strictly greater
///   than every epoch the store gave that device before, also across restarts;
/// - ``save(fenced:)`` stores a snapshot only under the current epoch and otherwise reports the
///   owner that took the device over, so the loser stops publishing for it.
public protocol DeviceSnapshotStoring: Sendable {
    /// Where the store is, for logs (a file path, or a URL without its password).
    var location: String { get }

    /// Writes snapshots, replacing each device's previous one, in one transaction, whoever owns
    /// the devices (single mode: this instance owns them all).
    func save(_ snapshots: [(device: DeviceID, snapshot: DeviceSnapshot)]) async throws

    /// A device's stored snapshot, or nil when none is stored.
    func snapshot(of device: DeviceID) async throws -> DeviceSnapshot?

    /// The ids of every device with a stored snapshot.
    func devices() async throws -> [DeviceID]

    /// The store's own clock (Unix epoch seconds) when several processes share it: the
    /// `state.retention` cut-off is taken on it. Nil for a store only this process writes.
    func storeTime() async throws -> Double?

    /// Removes snapshots not updated since `cutoff` (Unix epoch seconds). Ownership epochs are
    /// kept, so a device coming back still gets a greater one.
    /// - Returns: how many snapshots were removed.
    @discardableResult
    func prune(lastSeenBefore cutoff: Double) async throws -> Int

    /// Makes `instance` the owner of `device` under a new epoch, decided by the store.
    /// - Returns: the new epoch and the device's stored snapshot.
    func claim(_ device: DeviceID, instance: String) async throws -> DeviceClaim

    /// Writes snapshots each under the epoch its writer claimed, in one transaction; a snapshot
    /// whose epoch is no longer the device's current one is not written.
    /// - Returns: the devices whose write was refused, with their current owner.
    func save(fenced snapshots: [FencedSnapshot]) async throws -> [DeviceID: DeviceOwnership]

    /// Who owns `device` now, or nil when it was never claimed (a restarted instance asks before
    /// applying the journal records it replays).
    func owner(of device: DeviceID) async throws -> DeviceOwnership?
}

extension DeviceSnapshotStoring {
    /// A store of this process alone has no clock of its own.
    public func storeTime() async throws -> Double? { nil }
}
