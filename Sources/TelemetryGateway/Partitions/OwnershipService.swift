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
            for await _ in wakeups { await apply(take()) }
            await apply(take())
        }
        let beating = Task { try await ownership.run() }
        let watching = Task { await watchStatus() }
        // Taken up devices wait with the changes, so a loss noticed meanwhile is applied after them.
        let adopting = Task {
            await adoptMadeKnown { devices in
                waiting.withLock { $0.append(.adopted(devices)) }
                sink.yield()
            }
        }
        try? await gracefulShutdown()
        beating.cancel()
        adopting.cancel()
        _ = await beating.result
        await ownership.leave(within: Task.isCancelled ? 0 : drainSeconds)
        watching.cancel()
        _ = await adopting.result
        sink.finish()
        await applying.value
        record(ownership.status)
    }

    /// Lists, subscribes and hands over a batch of changes, in the order they came: the devices
    /// of every partition gained or warming up in it are listed in one statement, and the
    /// retained messages of the gained ones in another.
    private func apply(_ batch: [Pending]) async {
        guard !batch.isEmpty else { return }
        var listed: [Int] = []
        var gained: [Int] = []
        for case .change(let change) in batch {
            switch change {
            case .gained(let partition, _):
                listed.append(partition)
                gained.append(partition)
            case .warming(let partition): listed.append(partition)
            case .lost: break
            }
        }
        let partitions = ownership.partitions
        let devices = Dictionary(grouping: await list(listed, "devices", directory.devices(in:))) { partitions.partition(of: $0.rawValue) }
        let retained = Dictionary(grouping: await list(gained, "retained messages", directory.retainedOutputs(in:)).filter { $0.device != nil }) {
            partitions.partition(of: $0.device?.rawValue ?? "")
        }
        for pending in batch {
            switch pending {
            case .change(let change): handOver(change, devices: devices, retained: retained)
            case .adopted(let adopted): adopt(adopted)
            }
        }
        record(ownership.status)
    }

    /// Subscribes a change's listed devices and hands them with their retained messages to the workers.
    private func handOver(_ change: OwnershipChange, devices: [Int: [DeviceID]], retained: [Int: [OutboundMessage]]) {
        switch change {
        case .gained(let partition, _):
            metrics.partitionsGained.increment()
            metrics.devicesGained.increment(by: devices[partition]?.count ?? 0)
            push(change, devices: devices[partition] ?? [], retained: retained[partition] ?? [])
        case .warming(let partition):
            metrics.partitionsWarming.increment()
            push(change, devices: devices[partition] ?? [], retained: [])
        case .lost:
            metrics.partitionsLost.increment()
            push(change, devices: [], retained: [])
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
            push(change, devices: devices, retained: [])
            metrics.devicesAdopted.increment(by: devices.count)
        }
    }

    /// Subscribes `devices` for `change`, then hands the change to every worker with its shard's share.
    private func push(_ change: OwnershipChange, devices: [DeviceID], retained: [OutboundMessage]) {
        subscriptions.partitionChanged(change, devices: devices)
        let router = ShardRouter(shardCount: queues.count)
        var byShard = Array(repeating: [DeviceID](), count: queues.count)
        var retainedByShard = Array(repeating: [OutboundMessage](), count: queues.count)
        for device in devices { byShard[router.shard(forRoutingKey: device.rawValue)].append(device) }
        for message in retained {
            guard let device = message.device else { continue }
            retainedByShard[router.shard(forRoutingKey: device.rawValue)].append(message)
        }
        for (shard, queue) in queues.enumerated() { queue.pushControl(.ownership(change, byShard[shard], retained: retainedByShard[shard])) }
    }

    /// Every second until cancelled: the devices a former holder made known in partitions held
    /// here, handed to `found`. A failure is counted and tried again the next second.
    private func adoptMadeKnown(_ found: @Sendable ([DeviceID]) -> Void) async {
        while !Task.isCancelled {
            do {
                let devices = try await withStoreDeadline(SnapshotStorage.deadline, clock: clock) { [directory] in try await directory.adoptMadeKnown() }
                if !devices.isEmpty { found(devices) }
            } catch {
                metrics.listingFailures.increment()
            }
            try? await clock.sleep(for: 1)
        }
    }

    /// What the store holds of some partitions' devices, retried a few times. Without the
    /// devices, they are subscribed at their next discovery frame and restored at their first
    /// frame anyway; without the retained messages, a device's are announced again after a
    /// broker restart only once this instance published them (or restored the device).
    private func list<Listed: Sendable>(_ partitions: [Int], _ what: String, _ listing: @escaping @Sendable ([Int]) async throws -> [Listed]) async -> [Listed] {
        guard !partitions.isEmpty else { return [] }
        for attempt in 0..<3 {
            do {
                // Cancellable: a stop must not wait for a store call stuck on a replaced pool.
                return try await withCancellableStoreCall { try await listing(partitions) }
            } catch {
                metrics.listingFailures.increment()
                logger.warning("ownership: cannot list the \(what) of \(partitions.count) partitions (\(error)); attempt \(attempt + 1) of 3")
                try? await clock.sleep(for: 0.2 * Double(attempt + 1))
            }
        }
        return []
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
