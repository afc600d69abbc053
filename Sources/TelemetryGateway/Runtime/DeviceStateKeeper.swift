import CoreMetrics
import Foundation
import Logging
import RecorderStore
import TelemetryCore

/// One shard's side of durable device state: restores a device from its stored snapshot before
/// the device's first frame, writes the snapshots of changed devices each tick (and, in
/// partitioned mode, queues those of owned devices for the other instances), and evicts idle
/// devices (or the least recently active beyond `state.maxResidentDevices`).
///
/// A frame that can change a snapshot (anything but batched samples) keeps its journal record
/// until the snapshot written after it is stored: after a crash the journal replays it onto the
/// snapshot from before it, so no state change is lost between snapshots.
struct DeviceStateKeeper {
    private let shard: Int
    private let store: (any DeviceSnapshotStoring)?
    /// The store's configuration key, as logs and `/readyz` name it (`state.path` or `store.url`).
    private let storeKey: String
    /// Partitioned mode sharing state: where owned devices' snapshots go for publishing.
    private let cluster: ClusterRuntime?
    private let metrics: DeviceStateMetrics
    /// Where the store's write failures show (`/readyz`).
    private let health: RuntimeHealth
    private let logger: Logger
    private let settings: GatewayConfiguration.DeviceState
    /// This shard's share of `state.maxResidentDevices`.
    private let residentShare: Int
    /// Devices with a stored snapshot and no state in memory.
    private var dormant: Set<DeviceID> = []
    /// Journal releases waiting for the next snapshot write.
    private var heldForSnapshot: [ReleaseCountdown] = []
    /// Outputs of applied frames not acknowledged yet (the worker registers them as it publishes):
    /// snapshots carry them, restores republish them.
    let unacknowledged = UnacknowledgedOutputs()
    /// Devices whose latest snapshot is not stored (its write failed): written again with the
    /// next snapshots, and kept in memory until then.
    private(set) var unsaved: Set<DeviceID> = []
    /// One write failure logged per interval, however many ticks fail.
    private let failureLog = RateLimitedLog(interval: 30)
    private var nextIdleScan = 0.0
    /// When the next snapshot write is due, on the monotonic clock (it releases held journal
    /// records, so a step of the wall clock must not delay it); nil until the first tick, which
    /// starts the clock.
    private var nextSnapshot: SuspendingClock.Instant?

    /// Seconds between scans for idle devices (a scan sorts the shard's devices).
    private static let idleScanInterval = 10.0

    /// A keeper of shard `shard`'s devices (of `shardCount`).
    init(
        shard: Int, shardCount: Int, store: (any DeviceSnapshotStoring)?, storeKey: String = "state.path", cluster: ClusterRuntime?,
        metrics: DeviceStateMetrics, health: RuntimeHealth, logger: Logger, settings: GatewayConfiguration.DeviceState
    ) {
        self.storeKey = storeKey
        self.shard = shard
        self.store = store
        self.cluster = cluster
        self.metrics = metrics
        self.health = health
        self.logger = logger
        self.settings = settings
        residentShare = max(1, settings.maximumResidentDevices / shardCount)
    }

    /// Whether frames are held for snapshots (a store is configured).
    var isDurable: Bool { store != nil }

    /// Learns which of this shard's devices have a stored snapshot.
    mutating func load(router: ShardRouter) async {
        guard let store else { return }
        do {
            dormant = Set(try await store.devices().filter { router.shard(forRoutingKey: $0.rawValue) == shard })
            if !dormant.isEmpty { logger.info("shard \(shard): \(dormant.count) devices have stored state") }
        } catch {
            metrics.storeFailures.increment()
            health.recordStore(storeKey, error: "\(error)", decidesReadiness: storeKey == "store.url")
            logger.error("\(storeKey): cannot read the device state store \(store.location): \(error)")
        }
    }

    /// Restores a device from the store if it has a snapshot and no state in memory; returns
    /// the outputs the snapshot carries that the broker had not acknowledged, to publish again,
    /// under the journal sequence to acknowledge them with (they stay with the device's
    /// snapshots until acknowledged this time).
    mutating func restoreIfDormant(_ device: DeviceID, into processor: inout FrameProcessor) async -> (sequence: UInt64, messages: [OutboundMessage])? {
        guard let store, dormant.remove(device) != nil else { return nil }
        let snapshot: DeviceSnapshot
        do {
            guard let stored = try await store.snapshot(of: device) else { return nil }
            snapshot = stored
            if processor.restore(snapshot, of: device) {
                metrics.restored.increment()
            } else {
                metrics.restoreDiscarded.increment()
                logger.info("the stored state of \(device) was not fully restored (derivation settings changed, or bounds reached)")
            }
        } catch {
            metrics.restoreDiscarded.increment()
            logger.warning("the stored state of \(device) is unreadable; it starts fresh: \(error)")
            return nil
        }
        guard let outputs = snapshot.unacknowledgedOutputs, !outputs.isEmpty, processor.isResident(device) else { return nil }
        let sequence = snapshot.appliedJournalSequence ?? 0
        unacknowledged.register(device, sequence: sequence, outputs)
        logger.info("publishing again \(outputs.count) outputs of \(device) that the broker had not acknowledged before the restart")
        return (sequence, outputs)
    }

    /// Drops a device's stored snapshot from the restore list: another instance owned it since.
    mutating func forgetStored(_ device: DeviceID) {
        dormant.remove(device)
    }

    /// Keeps a frame's journal record until the next snapshot write.
    mutating func holdUntilSnapshot(_ countdown: ReleaseCountdown) {
        heldForSnapshot.append(countdown)
    }

    /// Every `state.snapshotInterval` of the monotonic clock (and once at shutdown, `now` and
    /// `instant` nil): writes the snapshots of
    /// changed devices, queues those this instance owns now for publishing (not a shadow's, nor
    /// a device whose ownership just moved away), evicts what is due, then lets go of the held
    /// journal records. Called on every tick.
    mutating func persist(_ processor: inout FrameProcessor, now: Double?, at instant: SuspendingClock.Instant?, shadows: ShadowDevices) async {
        if let instant {
            // The first write comes one interval after the first tick, like every later one.
            guard let due = nextSnapshot else {
                nextSnapshot = instant + .seconds(settings.snapshotInterval)
                return
            }
            guard instant >= due else { return }
            nextSnapshot = instant + .seconds(settings.snapshotInterval)
        }
        let held = heldForSnapshot
        heldForSnapshot.removeAll()
        var changed = processor.takeChangedDevices()
        if !unsaved.isEmpty {
            unsaved = unsaved.filter { processor.isResident($0) }
            changed = Array(Set(changed).union(unsaved)).sorted { $0.rawValue < $1.rawValue }
        }
        // In slices, so a storm of changed devices never holds all their snapshots at once.
        var start = 0
        while store != nil || cluster != nil, start < changed.count {
            let slice = changed[start..<min(start + Self.snapshotsPerWrite, changed.count)]
            let snapshots = snapshots(of: slice, in: processor)
            if let cluster {
                let date = now ?? Date().timeIntervalSince1970
                cluster.outbox.offer(snapshots.filter { !shadows.contains($0.device) && cluster.gate.owns($0.device, at: date) })
            }
            await save(snapshots)
            start += Self.snapshotsPerWrite
        }
        if let now {
            await evict(&processor, now: now)
        }
        metrics.record(shard: shard, resident: processor.residentDeviceCount, connection: processor.connectionCounts)
        held.forEach { $0.partDone() }
    }

    /// The snapshots of `devices` that have state, with their unacknowledged outputs.
    private func snapshots(of devices: ArraySlice<DeviceID>, in processor: FrameProcessor) -> [(device: DeviceID, snapshot: DeviceSnapshot)] {
        unacknowledged.attach(to: devices.compactMap { device in processor.snapshot(of: device).map { (device: device, snapshot: $0) } })
    }

    /// Seconds one snapshot write may take before it counts as failed (and is written again).
    private static let saveDeadline = 5.0

    /// The most snapshots written in one transaction.
    private static let snapshotsPerWrite = 500

    /// Stores snapshots; returns whether they are stored (true without a store: nothing to keep).
    @discardableResult
    private mutating func save(_ snapshots: [(device: DeviceID, snapshot: DeviceSnapshot)]) async -> Bool {
        guard let store, !snapshots.isEmpty else { return true }
        do {
            // Bounded, so a store that does not answer holds up this shard's frames for seconds, not for ever.
            try await withStoreDeadline(Self.saveDeadline) { try await store.save(snapshots) }
            metrics.snapshotsWritten.increment(by: snapshots.count)
            for (device, _) in snapshots { unsaved.remove(device) }
            health.recordStore(storeKey, error: nil, decidesReadiness: storeKey == "store.url")
            return true
        } catch {
            // Held frames are let go anyway: holding them would fill the journal. The devices
            // stay in memory (never evicted unsaved) and are written again with the next tick.
            metrics.storeFailures.increment()
            for (device, _) in snapshots { unsaved.insert(device) }
            health.recordStore(storeKey, error: "\(error)", decidesReadiness: storeKey == "store.url")
            if failureLog.shouldLog() {
                logger.error(
                    "\(storeKey): cannot write \(snapshots.count) device snapshots to \(store.location): \(error); retrying every state.snapshotInterval, \(unsaved.count) devices of shard \(shard) unsaved (gateway_device_state_failures_total, /readyz)"
                )
            }
            return false
        }
    }

    /// Evicts idle devices (every few seconds) and, beyond this shard's share of the resident
    /// bound, the least recently active down to 90 % of it. Their snapshots are stored first: a
    /// device whose snapshot cannot be stored stays in memory.
    private mutating func evict(_ processor: inout FrameProcessor, now: Double) async {
        let overCapacity = processor.residentDeviceCount > residentShare
        guard overCapacity || now >= nextIdleScan else { return }
        nextIdleScan = now + Self.idleScanInterval
        let cutoff = now - settings.idleEviction
        let target = overCapacity ? residentShare * 9 / 10 : residentShare
        let candidates = processor.evictionCandidates(idleSince: cutoff, maxResident: target)
        var start = 0
        while start < candidates.count {
            let slice = candidates[start..<min(start + Self.snapshotsPerWrite, candidates.count)]
            start += Self.snapshotsPerWrite
            let snapshots = snapshots(of: slice, in: processor)
            guard await save(snapshots) else { continue }
            for (device, snapshot) in snapshots {
                _ = processor.evict(device)
                if snapshot.lastSeen < cutoff { metrics.evictedIdle.increment() } else { metrics.evictedOverCapacity.increment() }
                if store != nil { dormant.insert(device) }
            }
        }
    }
}
