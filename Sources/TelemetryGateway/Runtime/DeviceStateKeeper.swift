import CoreMetrics
import Logging
import RecorderStore
import TelemetryCore

/// One shard's side of durable device state: writes the snapshots of changed devices each tick,
/// and evicts idle devices (or the least recently active beyond `state.maxResidentDevices`);
/// its ``stored`` devices are restored from their snapshots before their first frame.
///
/// A frame whose effect lives in its device's snapshot (``FrameResult/changesSnapshot``: an
/// applied frame of any stream but batched samples) keeps its journal record until the snapshot
/// written after it is stored: after a crash the journal replays it onto the snapshot from
/// before it, so no state change is lost between snapshots. Rejected frames and batches wait
/// for nothing here. When the journal fills past its high-water mark, the shards holding its
/// oldest records write at once (``persistNow(_:)``) instead of at the next interval.
///
/// Clustered, the store is the shared one: its writes are fenced by the partition leases
/// (docs/scale-out.md, *Ownership*), no device list is kept (a device not in memory is looked up
/// at its first frame), and a context frame's effect is written at the end of the worker's batch.
struct DeviceStateKeeper {
    private let shard: Int
    /// The store, each call bounded; nil without one (memory only).
    private let storage: SnapshotStorage?
    /// The last write failed: context frames wait for the next tick's write, which only probes.
    private var failing = false
    let metrics: DeviceStateMetrics
    private let logger: Logger
    private let settings: GatewayConfiguration.DeviceState
    /// This shard's share of `state.maxResidentDevices`.
    private let residentShare: Int
    /// The devices with stored state and none in memory, restored at their first frame.
    var stored: StoredDevices
    /// Journal releases waiting for the next snapshot write.
    private var heldForSnapshot: [ReleaseCountdown] = []
    /// Devices a context frame changed in the worker's current batch (written at its end, clustered).
    private var contextDirty: Set<DeviceID> = []
    /// Outputs of applied frames not acknowledged yet (the worker registers them as it publishes):
    /// snapshots carry them, restores republish them.
    let unacknowledged = UnacknowledgedOutputs()
    /// The retained messages last published, clustered: snapshots carry each device's to its
    /// next holder, restores take them back. Nil for a single gateway, whose snapshots stay as
    /// they were (it re-announces what it published in this run).
    private let retained: RetainedStateCache?
    /// Devices whose latest snapshot is not stored (its write failed): written again with the
    /// next snapshots, and kept in memory until then.
    private(set) var unsaved: Set<DeviceID> = []
    private var nextIdleScan = 0.0
    /// When the next snapshot write is due, on the monotonic clock (it releases held journal
    /// records, so a step of the wall clock must not delay it); nil until the first tick, which
    /// starts the clock.
    private var nextSnapshot: SuspendingClock.Instant?

    /// Seconds between scans for idle devices (a scan sorts the shard's devices).
    private static let idleScanInterval = 10.0

    /// A keeper of shard `shard`'s devices (of `shardCount`).
    init(
        shard: Int, shardCount: Int, store: (any DeviceSnapshotStoring)?, storeKey: String = "state.path",
        metrics: DeviceStateMetrics, health: RuntimeHealth, clock: any GatewayClock, logger: Logger, settings: GatewayConfiguration.DeviceState,
        retained: RetainedStateCache? = nil
    ) {
        self.retained = retained
        self.shard = shard
        storage = store.map { SnapshotStorage(store: $0, key: storeKey, metrics: metrics, health: health, clock: clock, logger: logger) }
        stored = StoredDevices(
            shard: shard, storage: storage, metrics: metrics, logger: logger, retained: retained, unacknowledged: unacknowledged)
        self.metrics = metrics
        self.logger = logger
        self.settings = settings
        residentShare = max(1, settings.maximumResidentDevices / shardCount)
    }

    /// Whether frames are held for snapshots (a store is configured).
    var isDurable: Bool { storage != nil }

    // MARK: Ownership changes (clustered)

    /// The context streams (hello, status, authorization, workout, headphone connection): a
    /// frame of one is sent once, so clustered its effect is written at the end of the batch.
    static let contextStreams: Set<InboundStream> = [.hello, .status, .authorization, .workout, .headphoneConnection]

    /// A partition lost: first the devices of it whose context frames or failed writes are not
    /// stored yet are written once more (the store, no longer fenced for this instance, only
    /// makes a device known that it has no row of: one first seen just before the loss would
    /// otherwise be known to no holder); then its devices are no longer restored here or written
    /// from here.
    /// - Parameter leaving: the partition's devices in memory here.
    mutating func forgetPartition(where inPartition: (DeviceID) -> Bool, leaving: [DeviceID], processor: FrameProcessor) async {
        let pending = contextDirty.union(unsaved).intersection(leaving)
        if !pending.isEmpty { await save(snapshots(of: ArraySlice(pending.sorted { $0.rawValue < $1.rawValue }), in: processor)) }
        stored.forget(where: inPartition)
        unsaved = unsaved.filter { !inPartition($0) }
        contextDirty = contextDirty.filter { !inPartition($0) }
    }

    /// Clustered: notes that a context frame (hello, status, authorization, workout, headphone
    /// connection) of a device was applied; ``persistContext(_:)`` writes it at the end of the
    /// worker's current batch.
    mutating func contextChanged(_ device: DeviceID) {
        guard storage?.store.handsDevicesOver == true else { return }
        contextDirty.insert(device)
    }

    /// Clustered: writes the snapshots of the devices a context frame changed (fenced), at the
    /// end of the worker's batch rather than at the next `state.snapshotInterval`: such a frame
    /// is sent once, so a successor after this instance's death must find the device's access
    /// state and workout session in the store. One write per batch, in slices like the ticks'
    /// (a start's retained hellos cost a transaction per slice, not per device); the devices are
    /// written again with the next tick's changes, as before.
    mutating func persistContext(_ processor: FrameProcessor) async {
        guard !contextDirty.isEmpty else { return }
        guard !failing else {
            // The next tick's probe writes them with the rest.
            unsaved.formUnion(contextDirty.filter { processor.isResident($0) })
            contextDirty.removeAll(keepingCapacity: true)
            return
        }
        let devices = contextDirty.filter { processor.isResident($0) }.sorted { $0.rawValue < $1.rawValue }
        contextDirty.removeAll(keepingCapacity: true)
        for slice in Self.slices(devices) {
            metrics.contextWrites.increment(by: slice.count)
            await save(snapshots(of: slice, in: processor))
        }
    }

    /// Keeps a frame's journal record until the next snapshot write.
    mutating func holdUntilSnapshot(_ countdown: ReleaseCountdown) {
        heldForSnapshot.append(countdown)
    }

    /// Every `state.snapshotInterval` of the monotonic clock (and once at shutdown, `now` and
    /// `instant` nil): writes the snapshots of changed devices, evicts what is due, then lets go of the held journal records. Called
    /// on every tick.
    mutating func persist(_ processor: inout FrameProcessor, now: Double?, at instant: SuspendingClock.Instant?) async {
        if let instant {
            // The first write comes one interval after the first tick, like every later one.
            guard let due = nextSnapshot else {
                nextSnapshot = instant + .seconds(settings.snapshotInterval)
                return
            }
            guard instant >= due else { return }
            nextSnapshot = instant + .seconds(settings.snapshotInterval)
        }
        await writeChanged(&processor)
        if let now {
            await evict(&processor, now: now)
        }
        metrics.record(shard: shard, resident: processor.residentDeviceCount, connection: processor.connectionCounts)
    }

    /// The journal passed its high-water mark with records of this shard at its tail: writes the
    /// changed devices' snapshots now, which lets go of the records held for them. Nothing is
    /// written when no record is held (the shard's records at the tail wait for their outputs'
    /// acknowledgements, which no snapshot speeds up). The interval's schedule is left as it is.
    /// - Returns: whether it wrote.
    @discardableResult
    mutating func persistNow(_ processor: inout FrameProcessor) async -> Bool {
        guard !heldForSnapshot.isEmpty else { return false }
        metrics.pressureWrites.increment()
        await writeChanged(&processor)
        return true
    }

    /// Writes the snapshots of the changed devices (and of those whose last write failed), then
    /// lets go of the journal records held until now.
    private mutating func writeChanged(_ processor: inout FrameProcessor) async {
        let held = heldForSnapshot
        heldForSnapshot.removeAll()
        if stored.listUnknown { await stored.relist(processor) }
        var changed = processor.takeChangedDevices()
        if !unsaved.isEmpty {
            unsaved = unsaved.filter { processor.isResident($0) }
            changed = Array(Set(changed).union(unsaved)).sorted { $0.rawValue < $1.rawValue }
        }
        // In slices, so a storm of changed devices never holds all their snapshots at once.
        for slice in Self.slices(storage == nil ? [] : changed) {
            // A failed slice: the rest waits for the next tick rather than a deadline each.
            guard await save(snapshots(of: slice, in: processor)) else {
                unsaved.formUnion(changed[slice.endIndex...])
                break
            }
        }
        held.forEach { $0.partDone() }
    }

    /// The snapshots of `devices` that have state, with their unacknowledged outputs and their
    /// retained messages.
    private func snapshots(of devices: ArraySlice<DeviceID>, in processor: FrameProcessor) -> [(device: DeviceID, snapshot: DeviceSnapshot)] {
        unacknowledged.attach(
            to: devices.compactMap { device in
                guard var snapshot = processor.snapshot(of: device) else { return nil }
                snapshot.retainedOutputs = retained?.messages(of: device)
                return (device: device, snapshot: snapshot)
            })
    }

    /// The most snapshots written in one transaction.
    private static let snapshotsPerWrite = 500

    /// `devices` in slices of at most ``snapshotsPerWrite``.
    private static func slices(_ devices: [DeviceID]) -> [ArraySlice<DeviceID>] {
        stride(from: 0, to: devices.count, by: snapshotsPerWrite).map { devices[$0..<min($0 + snapshotsPerWrite, devices.count)] }
    }

    /// Stores snapshots; returns whether they are stored (true without a store: nothing to keep).
    /// A device whose write failed stays unsaved: in memory, written again with the next tick.
    @discardableResult
    private mutating func save(_ snapshots: [(device: DeviceID, snapshot: DeviceSnapshot)]) async -> Bool {
        guard let storage, !snapshots.isEmpty else { return true }
        let stored = await storage.save(snapshots, probing: failing, unsaved: "\(unsaved.union(snapshots.map(\.device)).count) devices of shard \(shard)")
        failing = !stored
        for (device, _) in snapshots {
            if stored { unsaved.remove(device) } else { unsaved.insert(device) }
        }
        return stored
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
        for slice in Self.slices(processor.evictionCandidates(idleSince: cutoff, maxResident: target)) {
            let snapshots = snapshots(of: slice, in: processor)
            guard await save(snapshots) else { continue }
            for (device, snapshot) in snapshots {
                _ = processor.evict(device)
                if snapshot.lastSeen < cutoff { metrics.evictedIdle.increment() } else { metrics.evictedOverCapacity.increment() }
                if storage != nil { stored.awaitRestore([device]) }
            }
        }
    }
}
