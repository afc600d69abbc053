import CoreMetrics
import Logging
import RecorderStore
import TelemetryCore

/// One shard's side of durable device state: writes the snapshots of changed devices each tick,
/// evicts idle devices (or the least recently active beyond `state.maxResidentDevices`), and
/// restores its ``stored`` devices before their first frame.
///
/// A frame whose effect lives in its device's snapshot keeps its journal record until the
/// snapshot written after it is stored, so a crash loses no state change between snapshots
/// (``applied(_:messages:changesSnapshot:heldChunk:)``). Clustered, the store is the shared one,
/// its writes fenced by the partition leases (docs/scale-out.md, *Ownership*).
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
    /// Clustered: batched frames' records kept for a restart's sample windows (``SampleWindowHolds``).
    private var windowHolds: SampleWindowHolds?
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

    /// A keeper of shard `shard`'s devices (of `shardCount`); at most `restoreWaitLimitBytes` of
    /// frames wait for their devices' restores.
    init(
        shard: Int, shardCount: Int, store: (any DeviceSnapshotStoring)?, storeKey: String = "state.path",
        metrics: DeviceStateMetrics, health: RuntimeHealth, clock: any GatewayClock, logger: Logger, settings: GatewayConfiguration.DeviceState,
        retained: RetainedStateCache? = nil, sampleWindowHold: Duration? = nil, restoreWaitLimitBytes: Int = 4 << 20
    ) {
        self.retained = retained
        windowHolds = sampleWindowHold.map { SampleWindowHolds(duration: $0, releasedEarly: metrics.windowHoldsReleasedEarly) }
        self.shard = shard
        storage = store.map { SnapshotStorage(store: $0, key: storeKey, metrics: metrics, health: health, clock: clock, logger: logger) }
        stored = StoredDevices(
            shard: shard, storage: storage, metrics: metrics, logger: logger, retained: retained, unacknowledged: unacknowledged,
            waitLimitBytes: restoreWaitLimitBytes)
        self.metrics = metrics
        self.logger = logger
        self.settings = settings
        residentShare = max(1, settings.maximumResidentDevices / shardCount)
    }

    // MARK: Ownership changes (clustered)

    /// The context streams (hello, status, authorization, workout, headphone connection): a
    /// frame of one is sent once, so clustered its effect is written at the end of the batch.
    static let contextStreams: Set<InboundStream> = [.hello, .status, .authorization, .workout, .headphoneConnection]

    /// A partition lost: its devices whose context frames or failed writes are not stored yet
    /// are written once more (the store, fenced now, only makes known a device it has no row of:
    /// one first seen just before the loss), then no longer restored or written here.
    /// - Parameter leaving: the partition's devices in memory here.
    mutating func forgetPartition(where inPartition: (DeviceID) -> Bool, leaving: [DeviceID], processor: FrameProcessor) async {
        let pending = contextDirty.union(unsaved).intersection(leaving)
        if !pending.isEmpty { await save(snapshots(of: ArraySlice(pending.sorted { $0.rawValue < $1.rawValue }), in: processor)) }
        stored.forget(where: inPartition)
        unsaved = unsaved.filter { !inPartition($0) }
        contextDirty = contextDirty.filter { !inPartition($0) }
    }

    /// A frame (or command) applied, its `messages` about to be published: the countdowns of its
    /// journal release (nil without a record). Only a frame whose effect lives in its device's
    /// snapshot (`changesSnapshot`) waits for that snapshot's write; a rejected one, or one that
    /// changed nothing kept, goes once its outputs are acknowledged. Clustered, a context frame's
    /// device is written at the end of the worker's current batch (``persistContext(_:)``).
    mutating func applied(
        _ routed: RoutedFrame, messages: [OutboundMessage], changesSnapshot: Bool, heldChunk: Bool
    ) -> (record: ReleaseCountdown, outputs: ReleaseCountdown)? {
        let snapshotted = storage != nil && changesSnapshot
        let durable = storage == nil ? nil : routed.device.map { (device: $0, outputs: unacknowledged) }
        let countdowns = routed.release?.countdowns(messages: messages, durable: durable, snapshotted: snapshotted, heldChunk: heldChunk)
        if snapshotted, let record = countdowns?.record { heldForSnapshot.append(record) }
        if let record = countdowns?.record { windowHolds?.hold(record, of: routed.command) }
        if storage?.store.handsDevicesOver == true, case .frame(.device(let device, let stream)) = routed.command, Self.contextStreams.contains(stream) {
            contextDirty.insert(device)
        }
        return countdowns
    }

    /// Clustered: writes the devices a context frame changed at the end of the worker's batch,
    /// not at the next `state.snapshotInterval`: such a frame is sent once, so a successor after a
    /// death must find the device's access state and workout session in the store. In slices
    /// like the ticks' (a start's retained hellos cost a transaction per slice, not per device).
    mutating func persistContext(_ processor: FrameProcessor) async {
        guard !contextDirty.isEmpty else { return }
        let devices = contextDirty.filter { processor.isResident($0) }.sorted { $0.rawValue < $1.rawValue }
        contextDirty.removeAll(keepingCapacity: true)
        // Failing: the next tick's probe writes them with the rest.
        guard !failing else { return unsaved.formUnion(devices) }
        for slice in Self.slices(devices) {
            metrics.contextWrites.increment(by: slice.count)
            await save(snapshots(of: slice, in: processor))
        }
    }

    /// On every tick, acting every `state.snapshotInterval` of the monotonic clock (and once at
    /// shutdown, `now` and `instant` nil): writes the changed devices, evicts what is due.
    mutating func persist(_ processor: inout FrameProcessor, now: Double?, at instant: SuspendingClock.Instant?) async {
        windowHolds?.tick(at: instant)
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
        if let now { await evict(&processor, now: now) }
        metrics.record(shard: shard, resident: processor.residentDeviceCount, connection: processor.connectionCounts)
    }

    /// The journal passed its high-water mark with records of this shard at its tail: lets go of
    /// those held for sample windows if any (``SampleWindowHolds/relieve()``), else writes the
    /// changed devices now, letting go of those held for them (none held: nothing to do).
    mutating func persistNow(_ processor: inout FrameProcessor) async {
        if windowHolds?.relieve() == true { return }
        guard !heldForSnapshot.isEmpty else { return }
        metrics.pressureWrites.increment()
        await writeChanged(&processor)
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
