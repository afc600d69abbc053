import CoreMetrics
import Foundation
import Logging
import RecorderStore
import TelemetryCore

/// One shard's side of durable device state: restores a device from its stored snapshot before
/// the device's first frame, writes the snapshots of changed devices each tick, and evicts idle
/// devices (or the least recently active beyond `state.maxResidentDevices`).
///
/// A frame whose effect lives in its device's snapshot (``FrameResult/changesSnapshot``: an
/// applied frame of any stream but batched samples) keeps its journal record until the snapshot
/// written after it is stored: after a crash the journal replays it onto the snapshot from
/// before it, so no state change is lost between snapshots. Rejected frames and batches wait
/// for nothing here. When the journal fills past its high-water mark, the shards holding its
/// oldest records write at once (``persistNow(_:)``) instead of at the next interval.
///
/// In clustered modes it also holds the store's ownership claims of the shard's devices
/// (``DeviceClaims``): a device is claimed before anything is published for it, its snapshots
/// are written fenced under the claim's epoch, and a refused write is reported to the worker,
/// which stops publishing for the device (docs/scale-out.md, *Fencing*).
struct DeviceStateKeeper {
    private let shard: Int
    private let store: (any DeviceSnapshotStoring)?
    /// The store's configuration key, as logs and `/readyz` name it (`state.path` or `store.url`).
    private let storeKey: String
    private let metrics: DeviceStateMetrics
    /// Where the store's write failures show (`/readyz`).
    private let health: RuntimeHealth
    /// Where store calls time out and failure logs are spaced.
    private let clock: any GatewayClock
    private let logger: Logger
    private let settings: GatewayConfiguration.DeviceState
    /// This shard's share of `state.maxResidentDevices`.
    private let residentShare: Int
    /// Devices with a stored snapshot and no state in memory.
    private var dormant: Set<DeviceID> = []
    /// The shards' routing, kept from ``load(router:)`` to read the stored devices again.
    private var router: ShardRouter?
    /// The stored devices could not be listed (the store was down at start): until a later
    /// listing succeeds, every device's first frame asks the store for its snapshot.
    private var listUnknown = false
    /// Journal releases waiting for the next snapshot write.
    private var heldForSnapshot: [ReleaseCountdown] = []
    /// Claimed devices a context frame changed in the worker's current batch (written at its end).
    private var contextDirty: Set<DeviceID> = []
    /// Outputs of applied frames not acknowledged yet (the worker registers them as it publishes):
    /// snapshots carry them, restores republish them.
    let unacknowledged = UnacknowledgedOutputs()
    /// Devices whose latest snapshot is not stored (its write failed): written again with the
    /// next snapshots, and kept in memory until then.
    private(set) var unsaved: Set<DeviceID> = []
    /// One write failure logged per interval, however many ticks fail.
    private let failureLog: RateLimitedLog
    /// Clustered modes (always on the shared PostgreSQL store): the claims of this shard's
    /// devices, whose snapshots are the hand-over state; nil in single mode (one owner by
    /// definition: snapshots are written unfenced).
    private(set) var claims: DeviceClaims?
    /// Whether a gained device's stored snapshot is restored (its claim's, or a warm-up's): off
    /// only in the hand-over control run (`WG_FAULT_HANDOVER_STATE_OFF=1`, docs/testing.md),
    /// where a new owner starts from the device's context frames.
    private let restoresHandedOverState: Bool
    /// Devices fenced (a refused write, a notified claim), not yet taken by the worker.
    private var newlyFenced: [DeviceID: Fencing] = [:]
    /// The latest tick's monotonic instant (when a refusal was learnt).
    private var lastTick: SuspendingClock.Instant?
    /// One claim failure logged per interval.
    private let claimFailureLog: RateLimitedLog
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
        claimsAs instance: String? = nil, claimedDevices: ClaimedDevices? = nil,
        restoresHandedOverState: Bool = true
    ) {
        claims = store != nil ? instance.map { DeviceClaims(instance: $0, index: claimedDevices) } : nil
        self.restoresHandedOverState = restoresHandedOverState
        self.storeKey = storeKey
        self.shard = shard
        self.store = store
        self.metrics = metrics
        self.health = health
        self.clock = clock
        failureLog = RateLimitedLog(interval: 30, clock: clock)
        claimFailureLog = RateLimitedLog(interval: 30, clock: clock)
        self.logger = logger
        self.settings = settings
        residentShare = max(1, settings.maximumResidentDevices / shardCount)
    }

    /// Whether frames are held for snapshots (a store is configured).
    var isDurable: Bool { store != nil }

    /// Learns which of this shard's devices have a stored snapshot.
    mutating func load(router: ShardRouter) async {
        // Clustered, the shared store hands a device's snapshot over with its claim.
        guard let store, claims == nil else { return }
        self.router = router
        do {
            let stored = try await withStoreDeadline(Self.saveDeadline, clock: clock) { try await store.devices() }
            dormant = Set(stored.filter { router.shard(forRoutingKey: $0.rawValue) == shard })
            if !dormant.isEmpty { logger.info("shard \(shard): \(dormant.count) devices have stored state") }
        } catch {
            listUnknown = true
            metrics.storeFailures.increment()
            health.recordStore(storeKey, error: "\(error)", decidesReadiness: storeKey == "store.url")
            logger.error(
                "\(storeKey): cannot read the device state store \(store.location): \(error); each device's first frame asks it for the device's snapshot until it answers")
        }
    }

    /// Lists the stored devices again after a failed listing (on snapshot ticks): devices not in
    /// memory yet become dormant, restored at their first frame as usual.
    private mutating func relist(_ processor: FrameProcessor) async {
        guard listUnknown, let store, let router else { return }
        guard let stored = try? await withStoreDeadline(Self.saveDeadline, clock: clock, { try await store.devices() }) else { return }
        listUnknown = false
        dormant = Set(stored.filter { router.shard(forRoutingKey: $0.rawValue) == shard && !processor.isResident($0) })
        logger.notice("\(storeKey): the device state store answers again; \(dormant.count) devices of shard \(shard) have stored state")
    }

    /// Restores a device from the store if it has a snapshot and no state in memory; returns
    /// the outputs the snapshot carries that the broker had not acknowledged, to publish again,
    /// under the journal sequence to acknowledge them with (they stay with the device's
    /// snapshots until acknowledged this time).
    mutating func restoreIfDormant(_ device: DeviceID, into processor: inout FrameProcessor) async -> (sequence: UInt64, messages: [OutboundMessage])? {
        guard let store else { return nil }
        // Listed as stored, or (the listing failed) not seen in memory yet: ask the store.
        guard dormant.remove(device) != nil || (listUnknown && !processor.isResident(device)) else { return nil }
        let snapshot: DeviceSnapshot
        do {
            guard let stored = try await withStoreDeadline(Self.saveDeadline, clock: clock, { try await store.snapshot(of: device) }) else { return nil }
            snapshot = stored
        } catch {
            metrics.restoreDiscarded.increment()
            logger.warning("the stored state of \(device) is unreadable; it starts fresh: \(error)")
            return nil
        }
        return adopt(snapshot, of: device, into: &processor)
    }

    /// Restores a stored snapshot; returns the outputs it carries that the broker had not
    /// acknowledged (registered again until they are), under their journal sequence.
    private func adopt(_ snapshot: DeviceSnapshot, of device: DeviceID, into processor: inout FrameProcessor) -> (sequence: UInt64, messages: [OutboundMessage])? {
        if processor.restore(snapshot, of: device) {
            metrics.restored.increment()
        } else {
            metrics.restoreDiscarded.increment()
            logger.info("the stored state of \(device) was not fully restored (derivation settings changed, or bounds reached)")
        }
        guard let outputs = snapshot.unacknowledgedOutputs, !outputs.isEmpty, processor.isResident(device) else { return nil }
        let sequence = snapshot.appliedJournalSequence ?? 0
        unacknowledged.register(device, sequence: sequence, outputs)
        logger.info("publishing again \(outputs.count) outputs of \(device) that the broker had not acknowledged before the restart")
        return (sequence, outputs)
    }

    // MARK: Ownership claims (clustered modes)

    /// Claims `device` in the store for this instance, before anything is published for it.
    /// A device with no state in memory is restored from the claim's snapshot (what its
    /// previous owner, or this instance before a restart, stored last). A failed claim leaves
    /// the device pending: processed and published unfenced, claimed again at the next snapshot
    /// write.
    /// - Returns: whether a snapshot was restored, and the outputs it carries that the broker
    ///   had not acknowledged (to publish again).
    mutating func claim(_ device: DeviceID, into processor: inout FrameProcessor) async -> (
        restored: Bool, republish: (sequence: UInt64, messages: [OutboundMessage])?
    ) {
        guard let store, let instance = claims?.instance else { return (false, nil) }
        let claim: DeviceClaim
        do {
            claim = try await withStoreDeadline(Self.saveDeadline, clock: clock) { try await store.claim(device, instance: instance) }
        } catch {
            claims?.claimFailed(device)
            metrics.claimFailures.increment()
            if claimFailureLog.shouldLog() {
                logger.error(
                    "\(storeKey): cannot claim \(device) in \(store.location): \(error); devices not claimed are processed and published unfenced, their claims retried every state.snapshotInterval (gateway_cluster_claim_failures_total)"
                )
            }
            return (false, nil)
        }
        claims?.claimed(device, epoch: claim.epoch)
        metrics.claims.increment()
        guard restoresHandedOverState, !processor.isResident(device), let snapshot = claim.snapshot else { return (false, nil) }
        dormant.remove(device)
        let republish = adopt(snapshot, of: device, into: &processor)
        return (processor.isResident(device), republish)
    }

    /// Clustered, restores a device this instance will own after the warm-up (gained as a
    /// shadow) from its stored snapshot, without claiming it: its owner still writes it.
    /// Returns whether something was restored.
    mutating func warmUp(_ device: DeviceID, into processor: inout FrameProcessor) async -> Bool {
        guard restoresHandedOverState, claims != nil, let store, !processor.isResident(device) else { return false }
        do {
            guard let snapshot = try await withStoreDeadline(Self.saveDeadline, clock: clock, { try await store.snapshot(of: device) }) else { return false }
            _ = processor.restore(snapshot, of: device)
            return processor.isResident(device)
        } catch {
            metrics.storeFailures.increment()
            return false
        }
    }

    /// At a start, before the first replayed journal record of `device`: who owns it in the
    /// store, if another instance does (its replayed records are then not applied: the device
    /// is marked superseded). Nil when this instance owned it last, nobody did, or the store
    /// does not answer (then it is claimed like any other device).
    mutating func supersedingOwner(of device: DeviceID) async -> DeviceOwnership? {
        guard let store, let me = claims?.instance else { return nil }
        guard let owner = try? await withStoreDeadline(Self.saveDeadline, clock: clock, { try await store.owner(of: device) }), owner.instance != me else {
            return nil
        }
        claims?.supersede(device)
        return owner
    }

    /// The ownership plan moved `device` away: its latest state is written (fenced: refused if
    /// its next owner claimed it already) for its next owner to continue from; its claim is
    /// dropped either way.
    mutating func release(_ device: DeviceID, processor: FrameProcessor) async {
        defer { claims?.released(device) }
        guard let store, let epoch = claims?.epoch(of: device), let snapshot = processor.snapshot(of: device) else { return }
        let write = unacknowledged.attach(to: [(device: device, snapshot: snapshot)]).map { FencedSnapshot(device: $0.device, epoch: epoch, snapshot: $0.snapshot) }
        do {
            let refused = try await withStoreDeadline(Self.saveDeadline, clock: clock) { try await store.save(fenced: write) }
            if refused.isEmpty { metrics.snapshotsWritten.increment() }
        } catch {
            metrics.storeFailures.increment()
        }
        unsaved.remove(device)
    }

    /// How this instance learnt that another one claimed a device (``takeFenced()``).
    struct Fencing: Sendable, Equatable {
        enum Cause: Sendable, Equatable {
            /// Its fenced snapshot write was refused.
            case refusedWrite
            /// The store notified the claim (or the listener's owner check found it).
            case notified
        }
        /// Who holds the device now.
        let owner: DeviceOwnership
        let cause: Cause
    }

    /// Takes the devices fenced since the last call, with the owner that holds each now and how
    /// this instance learnt it: the worker stops publishing for them.
    mutating func takeFenced() -> [DeviceID: Fencing] {
        defer { newlyFenced.removeAll() }
        return newlyFenced
    }

    /// A claim of `device` by `owner` that the store notified (or the claim listener's owner
    /// check found), taken in order with the device's frames: fences the device like a refused
    /// write when another instance claimed it under a greater epoch than the one held here
    /// (``DeviceClaims/verdict(on:claimedBy:)``). Returns the verdict.
    @discardableResult
    mutating func noticed(_ device: DeviceID, claimedBy owner: DeviceOwnership) -> ClaimNoticeVerdict? {
        guard let verdict = claims?.verdict(on: device, claimedBy: owner) else { return nil }
        if verdict == .fence, claims?.refused(device, owner: owner, at: lastTick) == true {
            newlyFenced[device] = Fencing(owner: owner, cause: .notified)
            metrics.fencedNotified.increment()
        }
        return verdict
    }

    /// What a claim of `device` by `owner` that the store notified means here, without acting
    /// on it (``DeviceClaims/verdict(on:claimedBy:)``); nil when this instance claims nothing.
    func verdict(on device: DeviceID, claimedBy owner: DeviceOwnership) -> ClaimNoticeVerdict? {
        claims?.verdict(on: device, claimedBy: owner)
    }

    /// This instance handed `device` over: its next owner's claim was notified (or refused a
    /// snapshot write) while the plan gave the device to that owner. The claim held here is let
    /// go, and no fencing stays behind.
    mutating func handedOver(_ device: DeviceID) {
        claims?.released(device)
        unsaved.remove(device)
    }

    /// Lets go of the fencing of devices refused at least `delay` before `instant` that this
    /// instance's ownership plan still gives it (`owned`): the plans of the instances had the
    /// time to agree (a member that came back is through its warm-up), so the device is claimed
    /// again at its next frame. Returns those devices.
    mutating func unfence(after delay: Double, at instant: SuspendingClock.Instant, owned: (DeviceID) -> Bool) -> [DeviceID] {
        guard let due = claims?.fenced(before: instant, by: .seconds(delay)).filter(owned), !due.isEmpty else { return [] }
        for device in due { claims?.released(device) }
        return due.sorted { $0.rawValue < $1.rawValue }
    }

    /// Whether this instance claims devices before publishing for them (clustered with a store).
    var claimsOwnership: Bool { claims != nil }

    /// Whether a frame of `device` must be neither applied nor published (counted): fenced, or
    /// (`replayed`) a replayed journal record of a device another instance owns (``DeviceClaims``).
    func blocks(_ device: DeviceID, replayed: Bool) -> Bool {
        guard let claims else { return false }
        if claims.isFenced(device) {
            metrics.fencedFrames.increment()
            return true
        }
        if replayed && claims.isSuperseded(device) {
            metrics.replaySuperseded.increment()
            return true
        }
        return false
    }

    /// Restores `device`'s stored snapshot into `processor` to judge one frame by it (a
    /// superseded device's replayed upload); the caller forgets the device after. Nothing is
    /// claimed; without a readable snapshot the frame is judged as a new device's.
    func restoreForJudging(_ device: DeviceID, into processor: inout FrameProcessor) async {
        guard let store, let snapshot = try? await withStoreDeadline(Self.saveDeadline, clock: clock, { try await store.snapshot(of: device) }) else { return }
        _ = processor.restore(snapshot, of: device)
    }

    /// Whether a frame of `device` processed as owner must be preceded by a claim.
    func needsClaim(_ device: DeviceID) -> Bool { claims?.needsClaim(device) ?? false }

    /// `messages` without those about fenced devices, with `instance` and `epoch` on those about
    /// claimed devices.
    func stamp(_ messages: [OutboundMessage]) -> [OutboundMessage] { claims?.stamp(messages) ?? messages }

    /// Retries the claims that failed, until one fails again.
    private mutating func retryClaims() async {
        guard let store, let claims, !claims.pending.isEmpty else { return }
        for device in claims.pending.sorted(by: { $0.rawValue < $1.rawValue }) {
            guard let claim = try? await withStoreDeadline(Self.saveDeadline, clock: clock, { try await store.claim(device, instance: claims.instance) }) else {
                metrics.claimFailures.increment()
                return
            }
            self.claims?.claimed(device, epoch: claim.epoch)
            metrics.claims.increment()
        }
    }

    /// Clustered: notes that a context frame (hello, status, authorization, workout, headphone
    /// connection) of a claimed device was applied; ``persistContext(_:)`` writes it at the end
    /// of the worker's current batch.
    mutating func contextChanged(_ device: DeviceID) {
        guard claims?.epoch(of: device) != nil else { return }
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
        let devices = contextDirty.filter { processor.isResident($0) && claims?.epoch(of: $0) != nil }.sorted { $0.rawValue < $1.rawValue }
        contextDirty.removeAll(keepingCapacity: true)
        var start = 0
        while start < devices.count {
            let slice = devices[start..<min(start + Self.snapshotsPerWrite, devices.count)]
            metrics.contextWrites.increment(by: slice.count)
            await save(snapshots(of: slice, in: processor))
            start += Self.snapshotsPerWrite
        }
    }

    /// Keeps a frame's journal record until the next snapshot write.
    mutating func holdUntilSnapshot(_ countdown: ReleaseCountdown) {
        heldForSnapshot.append(countdown)
    }

    /// Every `state.snapshotInterval` of the monotonic clock (and once at shutdown, `now` and
    /// `instant` nil): writes the snapshots of changed devices (clustered, those this shard
    /// holds a claim of), evicts what is due, then lets go of the held journal records. Called
    /// on every tick.
    mutating func persist(_ processor: inout FrameProcessor, now: Double?, at instant: SuspendingClock.Instant?) async {
        if let instant {
            lastTick = instant
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
        await retryClaims()
        if listUnknown { await relist(processor) }
        var changed = processor.takeChangedDevices()
        if !unsaved.isEmpty {
            unsaved = unsaved.filter { processor.isResident($0) }
            changed = Array(Set(changed).union(unsaved)).sorted { $0.rawValue < $1.rawValue }
        }
        // In slices, so a storm of changed devices never holds all their snapshots at once.
        var start = 0
        while store != nil, start < changed.count {
            let slice = changed[start..<min(start + Self.snapshotsPerWrite, changed.count)]
            await save(snapshots(of: slice, in: processor))
            start += Self.snapshotsPerWrite
        }
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
    /// Clustered, each under its device's claim (``DeviceClaims``): a device without one is not
    /// written (a shadow's state is not the device's; a pending claim's device is written once
    /// claimed) and a refused write is kept for ``takeRefused()``.
    @discardableResult
    private mutating func save(_ snapshots: [(device: DeviceID, snapshot: DeviceSnapshot)]) async -> Bool {
        guard let store, !snapshots.isEmpty else { return true }
        var stored = true
        do {
            if let claims {
                let writes = snapshots.compactMap { item in claims.epoch(of: item.device).map { FencedSnapshot(device: item.device, epoch: $0, snapshot: item.snapshot) } }
                let refused = writes.isEmpty ? [:] : try await withStoreDeadline(Self.saveDeadline, clock: clock) { try await store.save(fenced: writes) }
                metrics.snapshotsWritten.increment(by: writes.count - refused.count)
                for write in writes { unsaved.remove(write.device) }
                for (device, owner) in refused {
                    // Reported once per fencing: a device fenced already is not written again.
                    if self.claims?.refused(device, owner: owner, at: lastTick) == true {
                        newlyFenced[device] = Fencing(owner: owner, cause: .refusedWrite)
                        metrics.fenced.increment()
                    }
                }
                for (device, _) in snapshots where claims.pending.contains(device) {
                    unsaved.insert(device)
                    stored = false
                }
            } else {
                // Bounded, so a store that does not answer holds up this shard's frames for seconds, not for ever.
                try await withStoreDeadline(Self.saveDeadline, clock: clock) { try await store.save(snapshots) }
                metrics.snapshotsWritten.increment(by: snapshots.count)
                for (device, _) in snapshots { unsaved.remove(device) }
            }
            health.recordStore(storeKey, error: nil, decidesReadiness: storeKey == "store.url")
            return stored
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
                // Claimed again at its next frame: a shard keeps no claims of devices out of
                // memory (a fenced one stays fenced).
                if claims?.isFenced(device) == false { claims?.released(device) }
            }
        }
    }
}
