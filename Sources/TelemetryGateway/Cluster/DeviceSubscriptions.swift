import CoreMetrics
import Locking
import MQTTTransport
import TelemetryCore

/// Partitioned mode's per-device subscriptions: every instance subscribes only the discovery
/// streams (`wearables/+/hello`, `wearables/+/status`); the devices it owns, or will own after a
/// warm-up, it subscribes one by one (`wearables/{id}/#`), so an instance receives its share of
/// the fleet's traffic, not all of it.
///
/// - **Make-before-break**: a device is subscribed as soon as this instance is its owner or its
///   next owner (the warm-up's shadow), and unsubscribed only once it is neither (after the
///   switch), so at the switch both instances receive its frames.
/// - **Availability after the SUBACK**: a device's discovery frames (its `hello` yields its
///   `availability`) are held here until the broker acknowledged the device's subscription, then
///   routed in order ahead of the device's first frame through it. A device that waits for its
///   availability before streaming loses nothing.
/// - **Duplicates**: mosquitto delivers a message once per matching subscription (measured in
///   `OverlappingSubscriptionTests`), and a `hello` matches both the discovery filter and the
///   device's. Discovery filters carry subscription identifier ``discoveryIdentifier``, device
///   filters ``deviceIdentifier``; a discovery-stream message that matched only a device filter
///   is the copy to drop (``isDuplicate(stream:identifiers:)``).
///
/// Bounded: devices known from discovery at most `limit` (the oldest not subscribed forgotten
/// first), held frames at most `heldBytesLimit` bytes (beyond it a frame is routed at once,
/// counted). Reconnects: the client re-sends every filter (clean session) and each SUBACK
/// releases what waits again.
final class DeviceSubscriptions: Sendable {
    /// Subscription identifier of the discovery (and command) filters.
    static let discoveryIdentifier = 1
    /// Subscription identifier of the per-device filters.
    static let deviceIdentifier = 2

    /// A discovery frame held until its device's SUBACK.
    struct HeldFrame: Sendable {
        var record: JournalRecord
        var ticket: JournalTicket?
        var shadow: Bool
        var bytes: Int { record.payload.count + record.topic.utf8.count }
    }

    private enum Phase {
        /// SUBSCRIBE sent (or to be re-sent on the next connection); frames wait.
        case pending([HeldFrame])
        /// The broker acknowledged: frames flow.
        case acknowledged

        var isPending: Bool { if case .pending = self { true } else { false } }
    }

    private struct State {
        var connection: (any InboundConnection)?
        /// Devices seen on the discovery streams, with the order they were first seen in.
        var known: [String: Int] = [:]
        var nextOrder = 0
        /// Devices subscribed, by routing key.
        var subscribed: [String: Phase] = [:]
        var heldBytes = 0
    }

    private let me: String
    private let scheme: TopicScheme
    private let view: ClusterView
    private let metrics: ClusterMetrics
    private let limit: Int
    private let heldBytesLimit: Int
    private let state = LockedState(State())

    init(view: ClusterView, scheme: TopicScheme, metrics: ClusterMetrics, limit: Int, heldBytesLimit: Int = 16 << 20) {
        me = view.me
        self.view = view
        self.scheme = scheme
        self.metrics = metrics
        self.limit = limit
        self.heldBytesLimit = heldBytesLimit
    }

    /// Whether a message on a discovery stream is the second copy of one delivered through the
    /// discovery filter (it matched only a device filter). Messages without identifiers (a
    /// broker that does not send them) are never dropped.
    static func isDuplicate(stream: InboundStream, identifiers: [Int]) -> Bool {
        TopicScheme.isDiscovery(stream) && !identifiers.isEmpty && !identifiers.contains(discoveryIdentifier)
    }

    /// The subscriber connection exists (before it connects): subscriptions go through it,
    /// those asked for before now included.
    func attach(_ connection: any InboundConnection) {
        state.withLock { state in
            state.connection = connection
            connection.request(state.subscribed.keys.map { scheme.deviceInboundFilter(rawDevice: $0) }, qos: .atLeastOnce, identifier: Self.deviceIdentifier)
        }
    }

    /// The plan changed (membership, a warm-up's end, a lapse): subscribe the devices this
    /// instance now owns or will own, unsubscribe those it neither owns nor will, nor is
    /// handing over (`keeping`: it publishes for them until their next owner's claim).
    /// - Returns: frames held for devices no longer subscribed, to route now (in order).
    func planChanged(_ plan: OwnershipPlan, keeping: Set<String> = []) -> [HeldFrame] {
        state.withLock { state in reconcile(&state, plan: plan, keys: Array(state.known.keys), keeping: keeping) }
    }

    /// A device this instance was handing over was claimed by its next owner: unsubscribed,
    /// unless `plan` gives it back to this instance. Frames still held for it (waiting for a
    /// SUBACK) are dropped with the device, counted as not owned.
    func handedOver(_ key: String, plan: OwnershipPlan) {
        guard plan.role(of: me, for: key) == .none else { return }
        let dropped = state.withLock { state in unsubscribe(&state, [key]).count }
        if dropped > 0 { metrics.framesNotOwned.increment(by: dropped) }
    }

    /// A discovery frame of `key` that this instance processes (as `role`): remembers the device,
    /// subscribes it if not yet, and holds the frame while the subscription is unacknowledged.
    /// - Returns: true when the frame is held (routed later by ``acknowledged(_:)``).
    func hold(_ frame: HeldFrame, key: String, role: OwnershipPlan.Role) -> Bool {
        state.withLock { state in
            remember(&state, key)
            guard role != .none else { return false }
            if state.subscribed[key] == nil { subscribe(&state, [key]) }
            guard case .pending(var frames)? = state.subscribed[key] else { return false }
            guard state.heldBytes + frame.bytes <= heldBytesLimit else {
                metrics.heldOverflow.increment()
                return false
            }
            frames.append(frame)
            state.subscribed[key] = .pending(frames)
            state.heldBytes += frame.bytes
            return true
        }
    }

    /// A discovery frame of a device this instance does not process: remembered (to subscribe
    /// it when it becomes this instance's).
    func seen(_ key: Substring) {
        state.withLock { remember(&$0, String(key)) }
    }

    /// The broker acknowledged `filters` (on the subscriber's network thread).
    /// - Returns: the frames held for those devices, to route now (in order).
    func acknowledged(_ filters: [String]) -> [HeldFrame] {
        let (frames, pending) = state.withLock { state -> ([HeldFrame], Int) in
            var released: [HeldFrame] = []
            for filter in filters {
                guard let key = scheme.device(ofInboundFilter: filter).map(String.init), let phase = state.subscribed[key] else { continue }
                if case .pending(let frames) = phase { released += frames }
                state.subscribed[key] = .acknowledged
            }
            state.heldBytes -= released.reduce(0) { $0 + $1.bytes }
            return (released, state.subscribed.values.filter(\.isPending).count)
        }
        metrics.subscriptionsPending.record(pending)
        return frames
    }

    /// The subscriber's connection ended: the clean session's subscriptions are gone until the
    /// client re-sends them; frames wait for the new SUBACKs.
    func connectionLost() {
        let pending = state.withLock { state in
            for (key, phase) in state.subscribed where !phase.isPending { state.subscribed[key] = .pending([]) }
            return state.subscribed.count
        }
        metrics.subscriptionsPending.record(pending)
    }

    // MARK: Under the lock

    private func remember(_ state: inout State, _ key: String) {
        guard state.known[key] == nil else { return }
        if state.known.count >= limit,
            let oldest = state.known.filter({ state.subscribed[$0.key] == nil }).min(by: { $0.value < $1.value })?.key
        {
            state.known[oldest] = nil
            metrics.discoveryForgotten.increment()
        }
        state.known[key] = state.nextOrder
        state.nextOrder += 1
    }

    private func reconcile(_ state: inout State, plan: OwnershipPlan, keys: [String], keeping: Set<String>) -> [HeldFrame] {
        let wanted = keys.filter { plan.role(of: me, for: $0) != .none }
        let added = wanted.filter { state.subscribed[$0] == nil }
        let removed = state.subscribed.keys.filter { plan.role(of: me, for: $0) == .none && !keeping.contains($0) }
        subscribe(&state, added)
        return unsubscribe(&state, Array(removed))
    }

    /// Drops the subscriptions of `keys` that are held; returns the frames still held for them.
    private func unsubscribe(_ state: inout State, _ keys: [String]) -> [HeldFrame] {
        let removed = keys.filter { state.subscribed[$0] != nil }
        guard !removed.isEmpty else { return [] }
        var released: [HeldFrame] = []
        for key in removed {
            if case .pending(let frames)? = state.subscribed.removeValue(forKey: key) { released += frames }
        }
        state.heldBytes -= released.reduce(0) { $0 + $1.bytes }
        state.connection?.unsubscribe(removed.map { scheme.deviceInboundFilter(rawDevice: $0) })
        metrics.deviceSubscriptions.record(state.subscribed.count)
        metrics.deviceUnsubscribes.increment(by: removed.count)
        return released
    }

    private func subscribe(_ state: inout State, _ keys: [String]) {
        guard !keys.isEmpty else { return }
        for key in keys { state.subscribed[key] = .pending([]) }
        // Without a connection yet, attach() sends them.
        state.connection?.request(keys.map { scheme.deviceInboundFilter(rawDevice: $0) }, qos: .atLeastOnce, identifier: Self.deviceIdentifier)
        metrics.deviceSubscriptions.record(state.subscribed.count)
        metrics.deviceSubscribes.increment(by: keys.count)
        metrics.subscriptionsPending.record(state.subscribed.values.filter(\.isPending).count)
    }
}
