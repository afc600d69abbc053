import CoreMetrics
import Metrics

/// Metrics of clustered modes (docs/scale-out.md).
final class ClusterMetrics: Sendable {
    /// Frames dropped right after their topic was read because another instance owns the device.
    let framesNotOwned: Counter
    /// Frames processed without publishing, as the device's next owner warming up.
    let framesShadowed: Counter
    /// Devices this instance took over (it restored their state before their first frame).
    let devicesGained: Counter
    /// Devices another instance took over (their state was released here).
    let devicesLost: Counter
    /// Changes of the live instance set as this instance saw them.
    let membershipChanges: Counter
    /// Times this instance found itself expired (its own announcements did not come back for
    /// `cluster.expiry`: frozen, or its will published) and stopped owning until it joined again.
    let lapses: Counter
    /// Live instances, this one included once it announced itself online.
    let liveInstances: Gauge
    /// Devices this instance holds state for as their owner.
    let ownedDevices: Gauge
    /// Context frames (hello, status, workout, …) kept for take-overs.
    let contextDevices: Gauge
    /// Device snapshots published on `gateway/cluster/state/{id}` (changed owned devices, lost devices).
    let snapshotsSent: Counter
    /// Snapshots that could not be published (encoding or the broker refused).
    let snapshotsNotSent: Counter
    /// Other instances' snapshots read (kept unless older than the one kept, or the device is processed here).
    let snapshotsReceived: Counter
    /// Owned devices' snapshots published again because another instance's older one arrived
    /// (it may have replaced the newer retained copy).
    let snapshotsRepublished: Counter
    /// Snapshots restored into a gained device before its first frame here.
    let snapshotsRestored: Counter
    /// Snapshots at a gain that could not be restored (unreadable, another format): the device
    /// started from its context frames.
    let snapshotsDiscarded: Counter
    /// Frames received after a restored snapshot and replayed onto it (the trail).
    let framesReplayed: Counter
    /// Devices whose kept snapshot and trail were dropped for `cluster.stateCacheBytes`.
    let stateDropped: Counter
    /// Bytes of kept snapshots and trails.
    let stateBytes: Gauge

    /// Per-device subscriptions held (partitioned mode: the devices owned or about to be).
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
    /// Devices known from discovery forgotten for `cluster.contextDevices`.
    let discoveryForgotten: Counter

    init(factory: any MetricsFactory) {
        deviceSubscriptions = Gauge(label: "gateway_cluster_device_subscriptions", factory: factory)
        subscriptionsPending = Gauge(label: "gateway_cluster_subscriptions_pending", factory: factory)
        deviceSubscribes = Counter(label: "gateway_cluster_device_subscription_changes_total", dimensions: [("change", "subscribed")], factory: factory)
        deviceUnsubscribes = Counter(label: "gateway_cluster_device_subscription_changes_total", dimensions: [("change", "unsubscribed")], factory: factory)
        duplicateDeliveries = Counter(label: "gateway_cluster_duplicate_deliveries_total", factory: factory)
        heldOverflow = Counter(label: "gateway_cluster_held_overflow_total", factory: factory)
        discoveryForgotten = Counter(label: "gateway_cluster_discovery_forgotten_total", factory: factory)
        framesNotOwned = Counter(label: "gateway_cluster_frames_not_owned_total", factory: factory)
        framesShadowed = Counter(label: "gateway_cluster_frames_shadowed_total", factory: factory)
        devicesGained = Counter(label: "gateway_cluster_handovers_total", dimensions: [("direction", "gained")], factory: factory)
        devicesLost = Counter(label: "gateway_cluster_handovers_total", dimensions: [("direction", "lost")], factory: factory)
        membershipChanges = Counter(label: "gateway_cluster_membership_changes_total", factory: factory)
        lapses = Counter(label: "gateway_cluster_self_lapses_total", factory: factory)
        liveInstances = Gauge(label: "gateway_cluster_live_instances", factory: factory)
        ownedDevices = Gauge(label: "gateway_cluster_owned_devices", factory: factory)
        contextDevices = Gauge(label: "gateway_cluster_context_devices", factory: factory)
        snapshotsSent = Counter(label: "gateway_cluster_snapshots_total", dimensions: [("event", "sent")], factory: factory)
        snapshotsNotSent = Counter(label: "gateway_cluster_snapshots_total", dimensions: [("event", "notSent")], factory: factory)
        snapshotsReceived = Counter(label: "gateway_cluster_snapshots_total", dimensions: [("event", "received")], factory: factory)
        snapshotsRepublished = Counter(label: "gateway_cluster_snapshots_total", dimensions: [("event", "republished")], factory: factory)
        snapshotsRestored = Counter(label: "gateway_cluster_snapshots_total", dimensions: [("event", "restored")], factory: factory)
        snapshotsDiscarded = Counter(label: "gateway_cluster_snapshots_total", dimensions: [("event", "discarded")], factory: factory)
        framesReplayed = Counter(label: "gateway_cluster_trail_frames_replayed_total", factory: factory)
        stateDropped = Counter(label: "gateway_cluster_state_dropped_total", factory: factory)
        stateBytes = Gauge(label: "gateway_cluster_state_bytes", factory: factory)
    }
}
