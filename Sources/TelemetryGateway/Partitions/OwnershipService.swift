import CoreMetrics
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
        let (changes, sink) = AsyncStream.makeStream(of: OwnershipChange.self)
        ownership.observe { [subscriptions] change in
            // At once, in the port's order: a lost partition's subscriptions go before a frame the
            // router let through as owner can subscribe one of its devices again; the listing
            // of a gained one's devices follows (apply).
            subscriptions.partitionChanged(change, devices: [])
            sink.yield(change)
        }
        let applying = Task { for await change in changes { await apply(change) } }
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

    /// Lists, subscribes and hands over one change, in the order the changes came.
    private func apply(_ change: OwnershipChange) async {
        var devices: [DeviceID] = []
        var retained: [OutboundMessage] = []
        switch change {
        case .gained(let partition, _):
            devices = await list(partition, "devices", listDevices) ?? []
            retained = await list(partition, "retained messages", listRetained) ?? []
            metrics.partitionsGained.increment()
        case .warming(let partition):
            devices = await list(partition, "devices", listDevices) ?? []
            metrics.partitionsWarming.increment()
        case .lost:
            metrics.partitionsLost.increment()
        }
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
        record(ownership.status)
    }

    /// What the store holds of a partition's devices, retried a few times. Without the devices,
    /// they are subscribed at their next discovery frame and restored at their first frame
    /// anyway; without the retained messages, a device's are announced again after a broker
    /// restart only once this instance published them (or restored the device).
    private func list<Listed>(_ partition: Int, _ what: String, _ listing: @Sendable ([Int]) async throws -> [Listed]) async -> [Listed]? {
        for attempt in 0..<3 {
            do {
                return try await listing([partition])
            } catch {
                metrics.listingFailures.increment()
                logger.warning("ownership: cannot list the \(what) of partition \(partition) (\(error)); attempt \(attempt + 1) of 3")
                try? await clock.sleep(for: 0.2 * Double(attempt + 1))
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
