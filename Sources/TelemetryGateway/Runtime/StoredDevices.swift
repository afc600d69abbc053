import CoreMetrics
import Locking
import Logging
import RecorderStore
import TelemetryCore

/// One shard's devices that have a stored snapshot and no state in memory ("dormant"): listed
/// at start (single mode), handed over with a partition (clustered) or evicted, each restored
/// from the store before its first frame is processed, with the retained messages and the
/// unacknowledged outputs its snapshot carries. Clustered, or while the store could not be
/// listed, a device not in memory is looked up at its first frame. While the store does not
/// answer, a device's frames wait here for its restore (``admit(_:into:at:)``), in order.
struct StoredDevices {
    private let shard: Int
    /// The store's reads, each bounded; nil without one (memory only).
    private let storage: SnapshotStorage?
    private let metrics: DeviceStateMetrics
    private let logger: Logger
    /// Where a restored snapshot's retained messages go (clustered; nil for a single gateway).
    private let retained: RetainedStateCache?
    /// Where a restored snapshot's unacknowledged outputs are registered again.
    private let unacknowledged: UnacknowledgedOutputs
    /// Devices with a stored snapshot and no state in memory.
    private var dormant: Set<DeviceID> = []
    /// The shards' routing, kept from ``load(router:)`` to read the stored devices again.
    private var router: ShardRouter?
    /// The stored devices could not be listed (the store was down at start): until a later
    /// listing succeeds, every device's first frame asks the store for its snapshot.
    private(set) var listUnknown = false
    /// A read of a snapshot failed (the store did not answer): until then no device's restore
    /// is tried (each would hold the shard up to a deadline), and the next read only probes.
    private var readsPausedUntil: SuspendingClock.Instant?
    /// Frames of devices whose restore waits for the store.
    private var waiting: RestoreWaitingFrames

    /// What a device's restore before its frame came to.
    enum Restore {
        /// Nothing waits: the device is in memory, has nothing stored, was restored, or its
        /// snapshot does not decode (it starts fresh). With the outputs a restored snapshot
        /// carries that the broker had not acknowledged, under their journal sequence.
        case done((sequence: UInt64, messages: [OutboundMessage])?)
        /// The store did not answer: the device keeps waiting for its restore (tried again at a
        /// later frame); its frame must not make it start fresh.
        case pending
    }

    /// What a frame's way through its device's restore comes to, in order.
    enum Step {
        /// Publish again the outputs a restored snapshot carries that the broker had not
        /// acknowledged (their frames are in the state, not applied again), before the frame.
        case republish(DeviceID, sequence: UInt64, messages: [OutboundMessage])
        /// Process the frame: its device's stored state is restored, or given up on.
        case process(RoutedFrame)
    }

    /// Seconds from a failed read's start to the next read (which only probes): while the store
    /// is away a shard spends at most a quarter of its time on reads.
    static let readRetryInterval = 2.0

    init(
        shard: Int, storage: SnapshotStorage?, metrics: DeviceStateMetrics, logger: Logger, retained: RetainedStateCache?,
        unacknowledged: UnacknowledgedOutputs, waitLimitBytes: Int
    ) {
        self.shard = shard
        waiting = RestoreWaitingFrames(limitBytes: waitLimitBytes)
        self.storage = storage
        self.metrics = metrics
        self.logger = logger
        self.retained = retained
        self.unacknowledged = unacknowledged
    }

    /// Learns which of this shard's devices have a stored snapshot.
    mutating func load(router: ShardRouter) async {
        guard let storage else { return }
        // Clustered, no device list: each device not in memory is looked up at its first frame.
        guard !storage.store.handsDevicesOver else {
            listUnknown = true
            return
        }
        self.router = router
        do {
            dormant = Set(try await storage.devices().filter { router.shard(forRoutingKey: $0.rawValue) == shard })
            if !dormant.isEmpty { logger.info("shard \(shard): \(dormant.count) devices have stored state") }
        } catch {
            listUnknown = true
            storage.readFailed(error)
            logger.error(
                "\(storage.key): cannot read the device state store \(storage.store.location): \(error); each device's first frame asks it for the device's snapshot until it answers")
        }
    }

    /// Lists the stored devices again after a failed listing (the keeper calls it on snapshot
    /// ticks): devices not in memory yet become dormant, restored at their first frame as usual.
    mutating func relist(_ processor: FrameProcessor) async {
        guard listUnknown, let storage, !storage.store.handsDevicesOver, let router, let stored = try? await storage.devices() else { return }
        listUnknown = false
        dormant = Set(stored.filter { router.shard(forRoutingKey: $0.rawValue) == shard && !processor.isResident($0) })
        logger.notice("\(storage.key): the device state store answers again; \(dormant.count) devices of shard \(shard) have stored state")
    }

    /// Restores a device from the store if it has a snapshot and no state in memory (see
    /// ``Restore``). A store that does not answer leaves the device waiting: starting it fresh
    /// would lose for good what its snapshot holds (a workout session, a pedometer baseline), as
    /// a warming partition's device did when the store went away during its warm-up.
    /// - Parameter now: when the restore is tried (a frame's processing, a tick): a failed read
    ///   pauses the reads for ``readRetryInterval`` from then.
    mutating func restoreIfDormant(_ device: DeviceID, into processor: inout FrameProcessor, at now: SuspendingClock.Instant) async -> Restore {
        guard let storage else { return .done(nil) }
        // Listed as stored, or (the listing failed) not seen in memory yet: ask the store.
        guard dormant.contains(device) || (listUnknown && !processor.isResident(device)) else { return .done(nil) }
        if let paused = readsPausedUntil, now < paused { return .pending }
        let snapshot: DeviceSnapshot
        do {
            let stored = try await storage.snapshot(of: device, probing: readsPausedUntil != nil)
            readsPausedUntil = nil
            dormant.remove(device)
            guard let stored else { return .done(nil) }
            snapshot = stored
        } catch let error as UnreadableSnapshot {
            readsPausedUntil = nil
            dormant.remove(device)
            metrics.restoreDiscarded.increment()
            logger.warning("the stored state of \(device) is unreadable; it starts fresh: \(error)")
            return .done(nil)
        } catch {
            if readsPausedUntil == nil {
                logger.warning("the stored state of \(device) cannot be read (\(error)); its restore waits for the store, retried every \(Self.readRetryInterval) s")
            }
            storage.readFailed(error)
            dormant.insert(device)
            readsPausedUntil = now + .roundedSeconds(Self.readRetryInterval)
            return .pending
        }
        return .done(adopt(snapshot, of: device, into: &processor))
    }

    /// Lets `frame` through behind its device's restore: the device restored first if dormant;
    /// while the store does not answer, nothing yet (the frame waits behind the device's earlier
    /// ones). Past the waiting bound every waiting device is given up on, this frame's too.
    mutating func admit(_ frame: RoutedFrame, into processor: inout FrameProcessor, at now: SuspendingClock.Instant) async -> [Step] {
        guard let device = frame.device else { return [.process(frame)] }
        if !waiting.contains(device) {
            switch await restoreIfDormant(device, into: &processor, at: now) {
            case .done(let restored): return Self.republishing(restored, of: device) + [.process(frame)]
            case .pending: metrics.restoreWaits.increment()
            }
        }
        guard !waiting.fits(frame) else {
            waiting.append(frame, of: device)
            return []
        }
        let waited = waiting.devices
        let steps = giveUpWaiting { _ in true }
        return steps + (waited.contains(device) ? [] : giveUp(device)) + [.process(frame)]
    }

    /// Tries the restores of the devices whose frames wait, oldest first, each followed by its
    /// frames; stops at the first the store does not answer.
    mutating func retryWaiting(into processor: inout FrameProcessor, at now: SuspendingClock.Instant) async -> [Step] {
        var steps: [Step] = []
        for device in waiting.devices {
            guard case .done(let restored) = await restoreIfDormant(device, into: &processor, at: now) else { break }
            steps += Self.republishing(restored, of: device) + waiting.take(device).map(Step.process)
        }
        return steps
    }

    /// Gives up on the restores of the waiting devices `matching`: their frames are processed
    /// without their stored state (they start fresh), counted and logged.
    mutating func giveUpWaiting(matching: (DeviceID) -> Bool) -> [Step] {
        var steps: [Step] = []
        for device in waiting.devices where matching(device) { steps += giveUp(device) }
        return steps
    }

    /// Takes every waiting frame (a stop: their records stay in the journal); returns how many.
    mutating func takeAllWaiting() -> Int {
        waiting.devices.reduce(0) { $0 + waiting.take($1).count }
    }

    private mutating func giveUp(_ device: DeviceID) -> [Step] {
        dormant.remove(device)
        metrics.restoresAbandoned.increment()
        let frames = waiting.take(device)
        logger.warning("the stored state of \(device) could not be read; \(frames.count) waiting frames are processed without it (it starts fresh)")
        return frames.map(Step.process)
    }

    private static func republishing(_ restored: (sequence: UInt64, messages: [OutboundMessage])?, of device: DeviceID) -> [Step] {
        restored.map { [.republish(device, sequence: $0.sequence, messages: $0.messages)] } ?? []
    }

    /// Restores a stored snapshot and the retained messages it carries; returns the outputs it
    /// carries that the broker had not acknowledged (registered again until they are), under
    /// their journal sequence.
    private func adopt(_ snapshot: DeviceSnapshot, of device: DeviceID, into processor: inout FrameProcessor) -> (sequence: UInt64, messages: [OutboundMessage])? {
        retained?.restore(snapshot.retainedOutputs ?? [])
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

    /// Restores `device`'s stored snapshot into `processor` to judge one frame by it (a replayed
    /// upload of a device another instance holds); the caller forgets the device after. Without
    /// a readable snapshot the frame is judged as a new device's.
    func restoreForJudging(_ device: DeviceID, into processor: inout FrameProcessor) async {
        guard let snapshot = try? await storage?.snapshot(of: device) else { return }
        _ = processor.restore(snapshot, of: device)
    }

    /// Devices of a partition gained or warming up: restored from the store at their first frame.
    mutating func awaitRestore(_ devices: some Sequence<DeviceID>) {
        dormant.formUnion(devices)
    }

    /// A partition lost: its devices are no longer restored here.
    mutating func forget(where inPartition: (DeviceID) -> Bool) {
        dormant = dormant.filter { !inPartition($0) }
    }
}
