import CoreMetrics
import Foundation
import Locking
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

    /// The clock membership and ownership count on (its monotonic side only).
    private let clock: any GatewayClock
    /// Where ``now()`` counts from.
    private let origin: SuspendingClock.Instant

    init(configuration: GatewayConfiguration, scheme: TopicScheme, metrics: ClusterMetrics, startedAt: Double, clock: any GatewayClock) {
        self.clock = clock
        origin = clock.monotonicNow()
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

    /// Now on this instance's monotonic clock, in seconds since the runtime was made: the time
    /// the membership view and the ownership plan count on (expiry, warm-up, liveness). No wall
    /// clock moves them, and no instant is compared with another machine's.
    func now() -> Double { (clock.monotonicNow() - origin).inSeconds }

    /// Now on the wall clock: only for the dates announcements show people.
    func wallTime() -> Double { clock.wallTime() }

    /// Another instance's newer claim of `device` was notified to its worker: when this instance
    /// was handing the device over (the plan gave it to that instance), it lets go of it and of
    /// its subscription, and returns true; false when the claim fences a device the plan still
    /// gives this instance.
    func handedOver(_ device: DeviceID) -> Bool {
        // Called on the device's worker: the plan as applied, not advanced here (a pending
        // switch still counts as a move away; the subscriber's thread or the heartbeat applies it).
        let plan = view.appliedPlan
        guard gate.handedOver(device, plan: plan) else { return false }
        // Unsubscribed now when the plan gives the device to another instance already, else at
        // this instance's own switch (the plan change unsubscribes what the gate no longer keeps).
        subscriptions?.handedOver(device.rawValue, plan: plan)
        return true
    }
}
