import CoreMetrics
import Metrics

/// Metrics of ownership (docs/scale-out.md, *Ownership*). Made in every mode; in single mode
/// they stay at zero.
final class OwnershipMetrics: Sendable {
    /// Frames dropped right after their topic was read because another instance holds the
    /// device's partition.
    let framesNotOwned: Counter
    /// Frames processed without publishing, for a partition warming up here.
    let framesShadowed: Counter
    /// Frames of a warming partition's device left to its holder: the store did not give the
    /// device's stored state yet.
    let framesUnrestored: Counter
    /// Devices of partitions gained (taken or handed over), restored from the store at their first frame.
    let devicesGained: Counter
    /// Devices of held partitions another instance made known after it lost them, taken up
    /// (subscribed, restored at their first frame).
    let devicesAdopted: Counter
    /// Devices let go with partitions lost.
    let devicesLost: Counter
    /// Partition changes by `change`: `gained`, `warming`, `lost`.
    let partitionsGained: Counter
    let partitionsWarming: Counter
    let partitionsLost: Counter
    /// Partitions held, and warming up.
    let heldPartitions: Gauge
    let warmingPartitions: Gauge
    /// Heartbeats the store did not answer in a row, and whether the last answered one is older than the
    /// lease time less its margin (1: another instance may hold this one's partitions by now).
    let failedHeartbeats: Gauge
    let pastDeadline: Gauge
    /// Listing a gained partition's devices from the store failed (retried; they are subscribed
    /// at their next discovery frame meanwhile).
    let listingFailures: Counter
    /// Per-device subscriptions held (the devices of held and warming partitions).
    let deviceSubscriptions: Gauge
    /// Per-device subscriptions whose SUBACK has not arrived (their discovery frames wait).
    let subscriptionsPending: Gauge
    /// Per-device subscriptions made and dropped.
    let deviceSubscribes: Counter
    let deviceUnsubscribes: Counter
    /// Second copies of a discovery-stream message (it also matched a device's filter), dropped.
    let duplicateDeliveries: Counter
    /// Discovery frames routed without waiting for their SUBACK (the held bytes were at their bound).
    let heldOverflow: Counter
    /// Dead instances this one adopted (and ran the stand-in of).
    let adoptions: Counter
    /// Round trips of the heartbeats the store answered.
    let heartbeatSeconds: Metrics.Timer

    init(factory: any MetricsFactory) {
        framesNotOwned = Counter(label: "gateway_cluster_frames_not_owned_total", factory: factory)
        framesShadowed = Counter(label: "gateway_cluster_frames_shadowed_total", factory: factory)
        framesUnrestored = Counter(label: "gateway_cluster_frames_unrestored_total", factory: factory)
        devicesGained = Counter(label: "gateway_cluster_handovers_total", dimensions: [("direction", "gained")], factory: factory)
        devicesAdopted = Counter(label: "gateway_cluster_handovers_total", dimensions: [("direction", "adopted")], factory: factory)
        devicesLost = Counter(label: "gateway_cluster_handovers_total", dimensions: [("direction", "lost")], factory: factory)
        partitionsGained = Counter(label: "gateway_cluster_partition_changes_total", dimensions: [("change", "gained")], factory: factory)
        partitionsWarming = Counter(label: "gateway_cluster_partition_changes_total", dimensions: [("change", "warming")], factory: factory)
        partitionsLost = Counter(label: "gateway_cluster_partition_changes_total", dimensions: [("change", "lost")], factory: factory)
        heldPartitions = Gauge(label: "gateway_cluster_partitions", dimensions: [("state", "held")], factory: factory)
        warmingPartitions = Gauge(label: "gateway_cluster_partitions", dimensions: [("state", "warming")], factory: factory)
        failedHeartbeats = Gauge(label: "gateway_cluster_heartbeats_failing", factory: factory)
        pastDeadline = Gauge(label: "gateway_cluster_lease_past_deadline", factory: factory)
        listingFailures = Counter(label: "gateway_cluster_listing_failures_total", factory: factory)
        deviceSubscriptions = Gauge(label: "gateway_cluster_device_subscriptions", factory: factory)
        subscriptionsPending = Gauge(label: "gateway_cluster_subscriptions_pending", factory: factory)
        deviceSubscribes = Counter(label: "gateway_cluster_device_subscription_changes_total", dimensions: [("change", "subscribed")], factory: factory)
        deviceUnsubscribes = Counter(label: "gateway_cluster_device_subscription_changes_total", dimensions: [("change", "unsubscribed")], factory: factory)
        duplicateDeliveries = Counter(label: "gateway_cluster_duplicate_deliveries_total", factory: factory)
        heldOverflow = Counter(label: "gateway_cluster_held_overflow_total", factory: factory)
        adoptions = Counter(label: "gateway_cluster_adoptions_total", factory: factory)
        heartbeatSeconds = Metrics.Timer(label: "gateway_cluster_heartbeat_seconds", factory: factory)
    }
}
