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
    /// Devices released here because their next owner's claim was notified while this instance
    /// was handing them over (the claim-driven switch; counted in ``devicesLost`` too).
    let devicesHandedOver: Counter
    /// Changes of the live instance set as this instance saw them.
    let membershipChanges: Counter
    /// Times this instance found itself expired (its own announcements did not come back for
    /// `cluster.expiry`: frozen, or its will published) and stopped owning until it joined again.
    let lapses: Counter
    /// Live instances, this one included once it announced itself online.
    let liveInstances: Gauge
    /// Devices this instance processes and publishes: owned, or handing over until the next
    /// owner's claim is notified.
    let ownedDevices: Gauge
    /// Devices this instance processes without publishing, warming up as their next owner.
    let shadowDevices: Gauge
    /// Context frames (hello, status, workout, …) kept for take-overs.
    let contextDevices: Gauge
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
        devicesHandedOver = Counter(label: "gateway_cluster_handed_over_total", factory: factory)
        membershipChanges = Counter(label: "gateway_cluster_membership_changes_total", factory: factory)
        lapses = Counter(label: "gateway_cluster_self_lapses_total", factory: factory)
        liveInstances = Gauge(label: "gateway_cluster_live_instances", factory: factory)
        ownedDevices = Gauge(label: "gateway_cluster_owned_devices", factory: factory)
        shadowDevices = Gauge(label: "gateway_cluster_shadow_devices", factory: factory)
        contextDevices = Gauge(label: "gateway_cluster_context_devices", factory: factory)
    }
}
