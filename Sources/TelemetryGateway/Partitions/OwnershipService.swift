import CoreMetrics
import Locking
import Logging
import Ownership
import ServiceLifecycle
import TelemetryCore

/// Keeps this instance's ownership current (the port's heartbeat) and acts on its changes:
/// a partition gained or warming up has its devices listed from the store, subscribed, and
/// handed to the workers (they restore each at its first frame); a lost one is unsubscribed and
/// its devices let go by the workers. Listed last in the service group, so at a graceful stop
/// it goes first: it hands its partitions over make-before-break while the rest still process,
/// then gives up what is left.
struct OwnershipService: Service {
    let ownership: any OwnershipPort
    /// The devices with stored state in the given partitions (none in single mode).
    let listDevices: @Sendable ([Int]) async throws -> [DeviceID]
    /// The retained messages the stored snapshots of the given partitions' devices carry.
    let listRetained: @Sendable ([Int]) async throws -> [OutboundMessage]
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
        let waiting = LockedState<[OwnershipChange]>([])
        let (wakeups, sink) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        ownership.observe { [subscriptions] change in
            // At once, in the port's order: a lost partition's subscriptions go before a frame the
            // router let through as owner can subscribe one of its devices again; the listing
            // of a gained one's devices follows (apply).
            subscriptions.partitionChanged(change, devices: [])
            waiting.withLock { $0.append(change) }
            sink.yield()
        }
        let applying = Task {
            let take = { waiting.withLock { changes in defer { changes = [] }; return changes } }
            for await _ in wakeups { await apply(take()) }
            await apply(take())
        }
        let beating = Task { try await ownership.run() }
        let watching = Task { await watchStatus() }
        try? await gracefulShutdown()
        beating.cancel()
        _ = await beating.result
        await ownership.leave(within: Task.isCancelled ? 0 : drainSeconds)
        watching.cancel()
        sink.finish()
        await applying.value
        record(ownership.status)
    }

    /// Lists, subscribes and hands over a batch of changes, in the order they came: the devices
    /// of every partition gained or warming up in it are listed in one statement, and the
    /// retained messages of the gained ones in another.
    private func apply(_ batch: [OwnershipChange]) async {
        guard !batch.isEmpty else { return }
        var listed: [Int] = []
        var gained: [Int] = []
        for change in batch {
            switch change {
            case .gained(let partition, _):
                listed.append(partition)
                gained.append(partition)
            case .warming(let partition): listed.append(partition)
            case .lost: break
            }
        }
        let partitions = ownership.partitions
        let devices = Dictionary(grouping: await list(listed, "devices", listDevices)) { partitions.partition(of: $0.rawValue) }
        let retained = Dictionary(grouping: await list(gained, "retained messages", listRetained).filter { $0.device != nil }) {
            partitions.partition(of: $0.device?.rawValue ?? "")
        }
        let router = ShardRouter(shardCount: queues.count)
        for change in batch {
            var partitionDevices: [DeviceID] = []
            var partitionRetained: [OutboundMessage] = []
            switch change {
            case .gained(let partition, _):
                (partitionDevices, partitionRetained) = (devices[partition] ?? [], retained[partition] ?? [])
                metrics.partitionsGained.increment()
            case .warming(let partition):
                partitionDevices = devices[partition] ?? []
                metrics.partitionsWarming.increment()
            case .lost:
                metrics.partitionsLost.increment()
            }
            subscriptions.partitionChanged(change, devices: partitionDevices)
            var byShard = Array(repeating: [DeviceID](), count: queues.count)
            var retainedByShard = Array(repeating: [OutboundMessage](), count: queues.count)
            for device in partitionDevices { byShard[router.shard(forRoutingKey: device.rawValue)].append(device) }
            for message in partitionRetained {
                guard let device = message.device else { continue }
                retainedByShard[router.shard(forRoutingKey: device.rawValue)].append(message)
            }
            for (shard, queue) in queues.enumerated() { queue.pushControl(.ownership(change, byShard[shard], retained: retainedByShard[shard])) }
        }
        record(ownership.status)
    }

    /// What the store holds of some partitions' devices, retried a few times. Without the
    /// devices, they are subscribed at their next discovery frame and restored at their first
    /// frame anyway; without the retained messages, a device's are announced again after a
    /// broker restart only once this instance published them (or restored the device).
    private func list<Listed>(_ partitions: [Int], _ what: String, _ listing: @Sendable ([Int]) async throws -> [Listed]) async -> [Listed] {
        guard !partitions.isEmpty else { return [] }
        for attempt in 0..<3 {
            do {
                return try await listing(partitions)
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
