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
    /// Live instances, this one included once it announced itself online.
    let liveInstances: Gauge
    /// Devices this instance holds state for as their owner.
    let ownedDevices: Gauge
    /// Context frames (hello, status, workout, …) kept for take-overs.
    let contextDevices: Gauge

    init(factory: any MetricsFactory) {
        framesNotOwned = Counter(label: "gateway_cluster_frames_not_owned_total", factory: factory)
        framesShadowed = Counter(label: "gateway_cluster_frames_shadowed_total", factory: factory)
        devicesGained = Counter(label: "gateway_cluster_handovers_total", dimensions: [("direction", "gained")], factory: factory)
        devicesLost = Counter(label: "gateway_cluster_handovers_total", dimensions: [("direction", "lost")], factory: factory)
        membershipChanges = Counter(label: "gateway_cluster_membership_changes_total", factory: factory)
        liveInstances = Gauge(label: "gateway_cluster_live_instances", factory: factory)
        ownedDevices = Gauge(label: "gateway_cluster_owned_devices", factory: factory)
        contextDevices = Gauge(label: "gateway_cluster_context_devices", factory: factory)
    }
}
