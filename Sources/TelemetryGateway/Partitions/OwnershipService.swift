import CoreMetrics
import Locking
import Logging
import Ownership
import ServiceLifecycle
import TelemetryCore

/// Keeps this instance's ownership current (the port's heartbeat) and acts on its changes:
/// a partition gained or warming up has its devices listed from the store, subscribed, and
/// handed to the workers (they restore each at its first frame); a lost one is unsubscribed and
/// its devices let go by the workers. Every second it also takes up the devices a former holder
/// made known after this instance listed their partition (``PartitionDirectory/adoptMadeKnown()``).
/// Listed last in the service group, so at a graceful stop it goes first: it hands its
/// partitions over make-before-break while the rest still process, then gives up what is left.
struct OwnershipService: Service {
    /// What waits to be applied, in the order it happened.
    private enum Pending {
        case change(OwnershipChange)
        /// Devices of held partitions taken up from the store.
        case adopted([DeviceID])
    }

    let ownership: any OwnershipPort
    /// The devices the store knows of each partition (nothing in single mode).
    let directory: any PartitionDirectory
    let subscriptions: any InboundSubscriptions
    let queues: [HandoffQueue<WorkItem>]
    let metrics: OwnershipMetrics
    /// Seconds a graceful stop hands partitions over before giving up the rest.
    let drainSeconds: Double
    let clock: any GatewayClock
    let logger: Logger

    func run() async throws {
        // Changes wait here and are applied in batches: a take-over of hundreds of partitions
        // costs one listing of their devices and one of their retained messages, not two per
        // partition.
        let waiting = LockedState<[Pending]>([])
        let unlisted = LockedState<[Int: OwnershipChange]>([:])
        let (wakeups, sink) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        ownership.observe { [subscriptions] change in
            // At once, in the port's order: a lost partition's subscriptions go before a frame the
            // router let through as owner can subscribe one of its devices again; the listing
            // of a gained one's devices follows (apply).
            subscriptions.partitionChanged(change, devices: [])
            waiting.withLock { $0.append(.change(change)) }
            sink.yield()
        }
        let applying = Task {
            let take = { waiting.withLock { pending in defer { pending = [] }; return pending } }
            let isWaiting = { (partition: Int) in
                waiting.withLock { $0.contains { if case .change(let change) = $0 { change.partition == partition } else { false } } }
            }
            for await _ in wakeups { await apply(take(), unlisted: unlisted, isWaiting: isWaiting) }
            await apply(take(), unlisted: unlisted, isWaiting: isWaiting)
        }
        let beating = Task { try await ownership.run() }
        let watching = Task { await watchStatus() }
        // Taken up devices wait with the changes, so a loss noticed meanwhile is applied after them.
        let adopting = Task {
            await everySecond { devices in
                if !devices.isEmpty { waiting.withLock { $0.append(.adopted(devices)) } }
                // Listings that failed are tried again with the next batch.
                if !devices.isEmpty || !unlisted.withLock({ $0.isEmpty }) { sink.yield() }
            }
        }
        // Until a graceful shutdown, or until the heartbeats end because another live run holds
        // this instance's name (then there is nothing to hand over, and the group stops).
        let stop: InstanceNameInUse? = await cancelWhenGracefulShutdown {
            await withTaskCancellationHandler {
                do {
                    try await beating.value
                } catch let stop as InstanceNameInUse {
                    return stop
                } catch {}
                // A port whose heartbeats end otherwise (a single gateway's has none) waits.
                try? await gracefulShutdown()
                return nil
            } onCancel: {
                beating.cancel()
            }
        }
        beating.cancel()
        adopting.cancel()
        _ = await beating.result
        await ownership.leave(within: stop != nil || Task.isCancelled ? 0 : drainSeconds)
        watching.cancel()
        _ = await adopting.result
        sink.finish()
        await applying.value
        record(ownership.status)
        if let stop { throw stop }
    }

    /// Lists, subscribes and hands over a batch of changes, in the order they came: the devices
    /// of every partition gained or warming up in it are listed in one statement, subscribed and
    /// handed to the workers; then the retained messages of the gained ones are listed in another
    /// and handed over after them. That one is the heavier (the store takes them out of the
    /// snapshots: 1.7-1.9 s for 8,000-9,000 devices at 10⁵ on this machine, against 0.05-0.2 s for
    /// the devices), so a take-over's subscriptions do not wait for it. Partitions whose listing
    /// failed earlier (`unlisted`) are listed with them; a failure leaves a batch's partitions
    /// there. Warming partitions listed and subscribed are reported to the port, unless a newer
    /// change of theirs is `isWaiting`; it accepts only those, once their SUBACKs came.
    private func apply(_ batch: [Pending], unlisted: LockedState<[Int: OwnershipChange]>, isWaiting: (Int) -> Bool) async {
        var retried = unlisted.withLock { found in defer { found = [:] }; return found }
        guard !batch.isEmpty || !retried.isEmpty else { return }
        // Every partition gained or warming in the batch is listed (its change is handed over
        // with its devices even if a later one in the batch undoes it); only the latest change of
        // each is listed again on a failure.
        var listed = Set(retried.keys)
        var latest: [Int: OwnershipChange] = [:]
        for case .change(let change) in batch {
            latest[change.partition] = change
            retried[change.partition] = nil
            if case .lost = change { continue }
            listed.insert(change.partition)
        }
        let current = latest.filter { if case .lost = $0.value { false } else { true } }.merging(retried) { new, _ in new }
        let partitions = ownership.partitions
        let attempts = batch.isEmpty ? 1 : 3
        let began = clock.monotonicNow()
        let listedDevices = await list(listed.sorted(), "devices", attempts: attempts, directory.devices(in:))
        let devicesListed = clock.monotonicNow()
        let devices = Dictionary(grouping: listedDevices ?? []) { partitions.partition(of: $0.rawValue) }
        // One with a newer change waiting is left to it.
        let again = retried.filter { listedDevices != nil && !isWaiting($0.key) }
        for (partition, change) in again.sorted(by: { $0.key < $1.key }) {
            if case .gained = change { metrics.devicesGained.increment(by: devices[partition]?.count ?? 0) }
            push(change, devices: devices[partition] ?? [])
        }
        for pending in batch {
            switch pending {
            case .change(let change): handOver(change, devices: devices)
            case .adopted(let adopted): adopt(adopted)
            }
        }
        ownership.prepared(
            current.keys.filter { if case .warming = current[$0], listedDevices != nil, !isWaiting($0) { true } else { false } }.sorted(),
            subscribed: { [subscriptions] in subscriptions.isSubscribed(partition: $0) })
        // The retained messages of the partitions still gained after the batch (a loss later in
        // it was handed over already: its partition's messages must not come after it).
        let gained = current.filter { if case .gained = $0.value, listedDevices != nil, !isWaiting($0.key) { true } else { false } }
        let retainedBegan = clock.monotonicNow()
        let listedRetained = await list(gained.keys.sorted(), "retained messages", attempts: attempts, directory.retainedOutputs(in:))
        let retained = Dictionary(grouping: (listedRetained ?? []).filter { $0.device != nil }) { partitions.partition(of: $0.device?.rawValue ?? "") }
        for (partition, messages) in retained.sorted(by: { $0.key < $1.key }) {
            if let change = gained[partition] { pushToWorkers(change, devices: [], retained: messages) }
        }
        if !listed.isEmpty {
            let seconds = { (from: SuspendingClock.Instant, to: SuspendingClock.Instant) in ((to - from).inSeconds * 1000).rounded() / 1000 }
            logger.info(
                "ownership: \(listed.count) partitions listed: \(listedDevices?.count ?? 0) devices in \(seconds(began, devicesListed)) s, \(listedRetained?.count ?? 0) retained messages in \(seconds(retainedBegan, clock.monotonicNow())) s"
            )
        }
        let failed = listedDevices == nil ? current : listedRetained == nil ? gained : [:]
        if !failed.isEmpty { unlisted.withLock { $0.merge(failed) { _, new in new } } }
        if !again.isEmpty && failed.isEmpty { logger.notice("ownership: listed the devices of \(again.count) partitions after failed attempts") }
        record(ownership.status)
    }

    /// Subscribes a change's listed devices and hands them to the workers.
    private func handOver(_ change: OwnershipChange, devices: [Int: [DeviceID]]) {
        switch change {
        case .gained(let partition, _):
            metrics.partitionsGained.increment()
            metrics.devicesGained.increment(by: devices[partition]?.count ?? 0)
            push(change, devices: devices[partition] ?? [])
        case .warming(let partition):
            metrics.partitionsWarming.increment()
            push(change, devices: devices[partition] ?? [])
        case .lost:
            metrics.partitionsLost.increment()
            push(change, devices: [])
        }
    }

    /// Devices taken up from the store: those of partitions still held (or warming) here are
    /// subscribed and handed to their workers as the partition's, restored at their first
    /// frame; a partition lost since keeps them out (its loss comes after them, in order).
    private func adopt(_ adopted: [DeviceID]) {
        let partitions = ownership.partitions
        for (partition, devices) in Dictionary(grouping: adopted, by: { partitions.partition(of: $0.rawValue) }).sorted(by: { $0.key < $1.key }) {
            let change: OwnershipChange
            switch ownership.role(of: devices[0].rawValue) {
            case .owner(let epoch): change = .gained(partition: partition, epoch: epoch)
            case .warming: change = .warming(partition: partition)
            case .none: continue
            }
            push(change, devices: devices)
            metrics.devicesAdopted.increment(by: devices.count)
        }
    }

    /// Subscribes `devices` for `change`, then hands the change to every worker with its shard's share.
    private func push(_ change: OwnershipChange, devices: [DeviceID]) {
        subscriptions.partitionChanged(change, devices: devices)
        pushToWorkers(change, devices: devices, retained: [])
    }

    /// Hands `change` to every worker with its shard's share of `devices` and `retained`.
    private func pushToWorkers(_ change: OwnershipChange, devices: [DeviceID], retained: [OutboundMessage]) {
        let router = ShardRouter(shardCount: queues.count)
        var byShard = Array(repeating: [DeviceID](), count: queues.count)
        var retainedByShard = Array(repeating: [OutboundMessage](), count: queues.count)
        for device in devices { byShard[router.shard(forRoutingKey: device.rawValue)].append(device) }
        for message in retained {
            guard let device = message.device else { continue }
            retainedByShard[router.shard(forRoutingKey: device.rawValue)].append(message)
        }
        for (shard, queue) in queues.enumerated() {
            // Retained messages alone (after their change) go only to the shards they concern.
            if devices.isEmpty && !retained.isEmpty && retainedByShard[shard].isEmpty { continue }
            queue.pushControl(.partitionMoved(PartitionMove(change: change, devices: byShard[shard], retained: retainedByShard[shard], partitions: ownership.partitions)))
        }
    }

    /// Every second until cancelled: the devices a former holder made known in partitions held
    /// here, handed to `tick` (none when there are none or the store failed; a failure is
    /// counted and tried again the next second).
    private func everySecond(_ tick: @Sendable ([DeviceID]) -> Void) async {
        while !Task.isCancelled {
            do {
                tick(try await withStoreDeadline(Self.adoptionDeadline, clock: clock) { [directory] in try await directory.adoptMadeKnown() })
            } catch {
                metrics.listingFailures.increment()
                tick([])
            }
            try? await clock.sleep(for: 1)
        }
    }

    /// Seconds the statement that takes up made-known devices may take before it counts as failed.
    static let adoptionDeadline = 5.0

    /// What the store holds of some partitions' devices, tried `attempts` times; nil when every
    /// attempt failed. Without the devices, they are subscribed at their next discovery frame and
    /// restored at their first frame; the caller lists them again a second later.
    private func list<Listed: Sendable>(
        _ partitions: [Int], _ what: String, attempts: Int, _ listing: @escaping @Sendable ([Int]) async throws -> [Listed]
    ) async -> [Listed]? {
        guard !partitions.isEmpty else { return [] }
        for attempt in 0..<attempts {
            do {
                // Cancellable: a stop must not wait for a store call stuck on a replaced pool.
                return try await withCancellableStoreCall { try await listing(partitions) }
            } catch {
                metrics.listingFailures.increment()
                logger.warning("ownership: cannot list the \(what) of \(partitions.count) partitions (\(error)); attempt \(attempt + 1) of \(attempts)")
                if attempt + 1 < attempts { try? await clock.sleep(for: 0.2 * Double(attempt + 1)) }
            }
        }
        return nil
    }

    /// Records the ownership's status every second (heartbeat failures, the deadline).
    private func watchStatus() async {
        while !Task.isCancelled {
            record(ownership.status)
            try? await clock.sleep(for: 1)
        }
    }

    private func record(_ status: OwnershipStatus) {
        metrics.heldPartitions.record(status.held)
        metrics.warmingPartitions.record(status.warming)
        metrics.pastDeadline.record(status.pastDeadline ? 1 : 0)
        metrics.failedHeartbeats.record(status.failedHeartbeats)
    }
}
