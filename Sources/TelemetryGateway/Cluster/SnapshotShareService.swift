import CoreMetrics
import Dispatch
import Foundation
import Locking
import Logging
import MQTTTransport
import ServiceLifecycle
import TelemetryCore

/// Publishes the snapshots the workers queued in the ``SnapshotOutbox`` (partitioned mode,
/// `cluster.shareState`): each as `gateway/cluster/state/{id}`, retained, QoS 1, the JSON the
/// device state store writes, with user properties `lastSeen` (when the owner received the last
/// frame the snapshot covers) and `instance`.
///
/// JSON encoding runs on a queue of its own, not on Swift's cooperative pool the workers share;
/// the messages go out on the publisher connection, which outlives the workers, so the
/// snapshots of their final write at shutdown are published too. Listed before the workers, it
/// stops after them.
struct SnapshotShareService: Service {
    /// The publishing connection (it outlives the workers).
    let connection: any OutboundConnection
    let cluster: ClusterRuntime
    let logger: Logger

    private static let encoding = DispatchQueue(label: "cluster-snapshot-encode")

    func run() async {
        await withGracefulShutdownHandler {
            for await _ in cluster.outbox.wakeups { await publishPending() }
        } onGracefulShutdown: {
            cluster.outbox.finish()
        }
        // The workers have stopped: what they queued last goes out now.
        await publishPending()
    }

    private func publishPending() async {
        let pending = cluster.outbox.take()
        if !pending.isEmpty {
            let messages = await Self.encode(pending, scheme: cluster.scheme, instance: cluster.instance)
            cluster.metrics.snapshotsNotSent.increment(by: pending.count - messages.count)
            for (device, lastSeen, message) in messages where await send(message) {
                cluster.ledger.withLock { $0.sent(message, device: device, lastSeen: lastSeen) }
                cluster.metrics.snapshotsSent.increment()
            }
        }
        // After the fresh ones, on the same connection: what goes out again is the newest sent.
        for device in cluster.outbox.takeRepublish() {
            guard let message = cluster.ledger.withLock({ $0.message(of: device) }), await send(message) else { continue }
            cluster.metrics.snapshotsRepublished.increment()
        }
    }

    private func send(_ message: MQTTMessage) async -> Bool {
        do {
            try await connection.send(message)
            return true
        } catch {
            cluster.metrics.snapshotsNotSent.increment()
            logger.debug("cluster: could not publish \(message.topic): \(error)")
            return false
        }
    }

    /// The messages of `snapshots` (with their device and `lastSeen`), encoded on ``encoding``;
    /// one that fails to encode is left out.
    static func encode(_ snapshots: [(device: DeviceID, snapshot: DeviceSnapshot)], scheme: TopicScheme, instance: String) async -> [(
        device: String, lastSeen: Double, message: MQTTMessage
    )] {
        await withCheckedContinuation { continuation in
            encoding.async {
                let encoder = JSONEncoder()
                let messages = snapshots.compactMap { device, snapshot -> (String, Double, MQTTMessage)? in
                    guard let json = try? encoder.encode(snapshot) else { return nil }
                    var properties = MQTTProperties(contentType: "application/json")
                    properties.userProperties = [.init(name: "lastSeen", value: "\(snapshot.lastSeen)"), .init(name: "instance", value: instance)]
                    return (
                        device.rawValue, snapshot.lastSeen,
                        MQTTMessage(.clusterState(device), in: scheme, payload: [UInt8](json), properties: properties)
                    )
                }
                continuation.resume(returning: messages)
            }
        }
    }
}
