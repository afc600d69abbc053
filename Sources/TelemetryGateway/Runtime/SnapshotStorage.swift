import CoreMetrics
import Logging
import RecorderStore
import TelemetryCore

/// One shard's calls to the device state store, each bounded by a deadline on the gateway's
/// clock, so a store that does not answer holds the shard's frames up for seconds, not for
/// ever. Failures are counted (`gateway_device_state_failures_total`), shown in `/readyz` under
/// the store's key and logged at most once per interval. After a failed write, the caller's
/// writes only probe the store (``probeDeadline``) until one succeeds.
struct SnapshotStorage {
    let store: any DeviceSnapshotStoring
    /// The store's configuration key, as logs and `/readyz` name it (`state.path` or `store.url`).
    let key: String
    private let metrics: DeviceStateMetrics
    private let health: RuntimeHealth
    private let clock: any GatewayClock
    private let logger: Logger
    /// One write failure logged per interval, however many ticks fail.
    private let failureLog: RateLimitedLog

    /// Seconds one call may take before it counts as failed.
    static let deadline = 5.0

    /// Seconds a write (or a read) may take while the store is failing.
    static let probeDeadline = 0.5

    init(store: any DeviceSnapshotStoring, key: String, metrics: DeviceStateMetrics, health: RuntimeHealth, clock: any GatewayClock, logger: Logger) {
        self.store = store
        self.key = key
        self.metrics = metrics
        self.health = health
        self.clock = clock
        self.logger = logger
        failureLog = RateLimitedLog(interval: 30, clock: clock)
    }

    /// The devices with a stored snapshot.
    func devices() async throws -> [DeviceID] {
        try await withStoreDeadline(Self.deadline, clock: clock) { [store] in try await store.devices() }
    }

    /// `device`'s stored snapshot; nil when it has none.
    /// - Parameter probing: the last read failed: this one only probes the store (``probeDeadline``).
    func snapshot(of device: DeviceID, probing: Bool = false) async throws -> DeviceSnapshot? {
        try await withStoreDeadline(probing ? Self.probeDeadline : Self.deadline, clock: clock) { [store] in try await store.snapshot(of: device) }
    }


    /// Counts and shows a failed read that the caller logs itself.
    func readFailed(_ error: any Error) {
        metrics.storeFailures.increment()
        health.recordStore(key, error: "\(error)", decidesReadiness: key == "store.url")
    }

    /// Stores snapshots; returns whether they are stored. Clustered, the store writes only those
    /// of partitions this instance still holds.
    /// - Parameters:
    ///   - probing: the last write failed: this one only probes the store (``probeDeadline``).
    ///   - unsaved: how many devices stay unsaved if this write fails (for the log).
    func save(_ snapshots: [(device: DeviceID, snapshot: DeviceSnapshot)], probing: Bool, unsaved: @autoclosure () -> String) async -> Bool {
        do {
            try await withStoreDeadline(probing ? Self.probeDeadline : Self.deadline, clock: clock) { [store] in try await store.save(snapshots) }
            metrics.snapshotsWritten.increment(by: snapshots.count)
            health.recordStore(key, error: nil, decidesReadiness: key == "store.url")
            return true
        } catch {
            // Held frames are let go anyway: holding them would fill the journal. The caller keeps
            // the devices in memory (never evicted unsaved) and writes them again with the next tick.
            readFailed(error)
            if failureLog.shouldLog() {
                logger.error(
                    "\(key): cannot write \(snapshots.count) device snapshots to \(store.location): \(error); retrying every state.snapshotInterval, \(unsaved()) unsaved (gateway_device_state_failures_total, /readyz)"
                )
            }
            return false
        }
    }
}
