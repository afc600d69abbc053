import CoreMetrics
import Foundation
import TelemetryCore

/// The clustered modes' shared parts: this instance's identity, the membership view and the
/// ownership gate (partitioned mode). Device state is handed over by the shared store (its
/// claims), not here.
final class ClusterRuntime: Sendable {
    let mode: GatewayConfiguration.Cluster.Mode
    let instance: String
    let view: ClusterView
    /// Who processes what: partitioned mode, by the plan, with the context kept for devices
    /// arriving here; shared mode, the devices whose frames came here.
    let gate: OwnershipGate
    let metrics: ClusterMetrics
    let status: InstanceStatusMessage
    /// The topic layout the cluster's topics come from.
    let scheme: TopicScheme
    /// `{outboundRoot}/instances/+`: every instance's announcement.
    let instancesFilter: String
    /// Partitioned mode: the owned devices' subscriptions (nil in shared mode).
    let subscriptions: DeviceSubscriptions?
    /// Seconds after which a fenced device that this instance's plan still gives it is claimed
    /// again: long enough for the instances' plans to agree (an expired member that came back is
    /// through its warm-up), so two instances never take a device from each other in turn.
    let reclaimDelay: Double
    /// Whether a device's new owner restores the snapshot the store hands over with its claim:
    /// false only in the hand-over control run (`WG_FAULT_HANDOVER_STATE_OFF=1`).
    let restoresHandedOverState = ProcessInfo.processInfo.environment["WG_FAULT_HANDOVER_STATE_OFF"] != "1"

    init(configuration: GatewayConfiguration, scheme: TopicScheme, metrics: ClusterMetrics, startedAt: Double) {
        mode = configuration.cluster.mode
        instance = configuration.cluster.instanceName
        self.metrics = metrics
        reclaimDelay = configuration.cluster.expiry + configuration.cluster.handoverWarmup + 2 * configuration.state.snapshotInterval
        view = ClusterView(
            me: instance, expiry: configuration.cluster.expiry, warmup: configuration.cluster.handoverWarmup, metrics: metrics,
            checksSelf: ProcessInfo.processInfo.environment["WG_FAULT_SELF_EXPIRY_OFF"] != "1")
        gate = OwnershipGate(
            view: view, scheme: scheme, contextDevices: configuration.cluster.contextDevices, metrics: metrics, ownsEverything: mode == .shared)
        self.scheme = scheme
        subscriptions =
            mode == .partitioned ? DeviceSubscriptions(view: view, scheme: scheme, metrics: metrics, limit: configuration.cluster.contextDevices) : nil
        status = InstanceStatusMessage(
            scheme: scheme, instance: instance, mode: mode.rawValue, startedAt: startedAt,
            incarnation: String(UUID().uuidString.prefix(8)))
        instancesFilter = scheme.instancesFilter
    }
}
