import GatewayJournal
import CoreMetrics
import TelemetryCore

/// Metrics of device snapshots, restores and eviction.
final class DeviceStateMetrics: Sendable {
    /// Devices whose state came back from the store (after a restart or an eviction).
    let restored: Counter
    /// Devices whose stored snapshot was not (fully) taken back: unreadable, another format, or
    /// taken under other derivation settings; they start (partly) fresh.
    let restoreDiscarded: Counter
    /// Devices whose first frame found the store not answering: their frames wait for the restore.
    let restoreWaits: Counter
    /// Devices processed without their stored state after waiting for it: their waiting frames
    /// passed the bound, or their partition moved meanwhile.
    let restoresAbandoned: Counter
    /// Devices whose state left memory, because idle or because over `state.maxResidentDevices`.
    let evictedIdle: Counter
    let evictedOverCapacity: Counter
    /// Snapshots written to the store.
    let snapshotsWritten: Counter
    /// Snapshot writes made early because the journal passed its high-water mark while this
    /// shard held records at its tail (``JournalPressure``); one per write, whatever it held.
    let pressureWrites: Counter
    /// Clustered: journal records of batched frames let go before their sample-window hold ended,
    /// because the journal passed its high-water mark (a restart on this disk misses their samples).
    let windowHoldsReleasedEarly: Counter
    /// Store reads or writes that failed (the state of those devices may be lost on a crash).
    let storeFailures: Counter
    /// Store files that could not be opened and were moved aside for a fresh one (`state.path`).
    let movedAside: Counter
    /// Clustered: snapshots written at once after a context frame (hello, status,
    /// authorization, workout, headphone connection), not at the next interval.
    let contextWrites: Counter
    /// Devices with state in memory, per shard.
    let resident: [Gauge]
    /// Devices with state in memory by connection state (`connected`, `disconnected`, `unknown`), per shard.
    let connection: [(connected: Gauge, disconnected: Gauge, unknown: Gauge)]

    init(factory: any MetricsFactory, shards: Int) {
        restored = Counter(label: "gateway_devices_restored_total", factory: factory)
        restoreDiscarded = Counter(label: "gateway_device_restores_discarded_total", factory: factory)
        restoreWaits = Counter(label: "gateway_device_restore_waits_total", factory: factory)
        restoresAbandoned = Counter(label: "gateway_device_restores_abandoned_total", factory: factory)
        evictedIdle = Counter(label: "gateway_devices_evicted_total", dimensions: [("reason", "idle")], factory: factory)
        evictedOverCapacity = Counter(label: "gateway_devices_evicted_total", dimensions: [("reason", "overCapacity")], factory: factory)
        snapshotsWritten = Counter(label: "gateway_device_snapshots_written_total", factory: factory)
        pressureWrites = Counter(label: "gateway_journal_pressure_writes_total", factory: factory)
        windowHoldsReleasedEarly = Counter(label: "gateway_journal_window_holds_released_early_total", factory: factory)
        storeFailures = Counter(label: "gateway_device_state_failures_total", factory: factory)
        movedAside = Counter(label: "gateway_device_state_moved_aside_total", factory: factory)
        contextWrites = Counter(label: "gateway_cluster_context_writes_total", factory: factory)
        resident = (0..<shards).map { Gauge(label: "gateway_devices_resident", dimensions: [("shard", "\($0)")], factory: factory) }
        connection = (0..<shards).map { shard in
            func gauge(_ state: String) -> Gauge {
                Gauge(label: "gateway_devices", dimensions: [("state", state), ("shard", "\(shard)")], factory: factory)
            }
            return (gauge("connected"), gauge("disconnected"), gauge("unknown"))
        }
    }

    /// Records a shard's resident devices and their connection states.
    func record(shard: Int, resident count: Int, connection counts: DeviceConnectionCounts) {
        resident[shard].record(count)
        connection[shard].connected.record(counts.connected)
        connection[shard].disconnected.record(counts.disconnected)
        connection[shard].unknown.record(counts.unknown)
    }
}
