import CoreMetrics
import GatewayJournal
import Locking
import MQTTTransport
import Ownership
import TelemetryCore

/// Clustered subscriptions: every instance subscribes the discovery streams
/// (`wearables/+/hello`, `wearables/+/status`); the devices of the partitions it holds or warms
/// up it subscribes one by one (`wearables/{id}/#`), listed from the store when the partition
/// comes (and a new device at its first discovery frame), so an instance receives its share of
/// the fleet's traffic, not all of it.
///
/// - **Make-before-break**: a partition's devices are subscribed from its warm-up on and
///   unsubscribed only when it is lost, so at a hand-over both instances receive them.
/// - **Availability after the SUBACK**: a discovery frame of a device not yet subscribed (its
///   `hello` yields its `availability`) is held until the broker acknowledged the device's
///   subscription, then routed ahead of the device's first frame through it.
/// - **Duplicates**: mosquitto delivers a message once per matching subscription, and a
///   `hello` matches both a discovery filter and the device's. Discovery filters carry
///   subscription identifier ``discoveryIdentifier``, device filters ``deviceIdentifier``; of a
///   discovery-stream message, the copy right after an equal one through the other filter is
///   the one to drop. Not a fixed filter's copy: what mosquitto queued for the session before
///   a restart from its persistence comes through one filter only (once dropped as the device
///   filter's copy: every status a device sent while the broker restarted was lost).
///
/// - **Retained messages**: a device's retained `hello` through its own filter would be the
///   copy to drop, so device filters ask for none; discovery filters ask for them only when
///   the broker's session lacks the filter (a fresh session learns the fleet's devices, a
///   resumed one, a stand-in's included, is not sent 10⁵ of them again).
///
/// No list of every device: only the subscribed ones (those of held and warming partitions).
/// Held frames are bounded in bytes (beyond it a frame is routed at once, counted).
final class PartitionSubscriptions: InboundSubscriptions {
    /// Subscription identifier of the discovery (and command) filters.
    static let discoveryIdentifier = 1
    /// Subscription identifier of the per-device filters.
    static let deviceIdentifier = 2
    /// Subscription identifier of a stand-in's backlog mark (``deliverMark(topic:publish:)``).
    static let markIdentifier = 3
    /// Options of the discovery (and command) filters.
    static let discoveryOptions = SubscriptionOptions(identifier: discoveryIdentifier, retainHandling: .whenNew)
    /// Options of a device's filter.
    static let deviceOptions = SubscriptionOptions(identifier: deviceIdentifier, retainHandling: .never)

    private enum Phase {
        /// SUBSCRIBE sent (or to be re-sent on the next connection); frames wait.
        case pending([RoutedFrame])
        /// The broker acknowledged: frames flow.
        case acknowledged

        var isPending: Bool { if case .pending = self { true } else { false } }
    }

    private struct State {
        var connection: (any InboundConnection)?
        /// Whether the subscriber is connected (from its CONNACK to its loss).
        var connected = false
        /// Devices subscribed, by routing key.
        var subscribed: [String: Phase] = [:]
        /// The subscribed devices of each partition.
        var byPartition: [Int: Set<String>] = [:]
        /// Partitions lost and not gained again since: their devices are not subscribed.
        var released: Set<Int> = []
        var heldBytes = 0
        /// Subscriptions whose SUBACK has not arrived (kept, not counted, so a new device costs O(1)).
        var pending = 0
        /// Devices acknowledged when the connection ended: a session the broker kept still has
        /// their subscriptions, so its CONNACK acknowledges them again.
        var suspended: [String] = []
        /// Backlog marks under way, by topic: their SUBACK, then their arrival.
        var marks: [String: (subscribed: AsyncStream<Never>.Continuation, arrived: AsyncStream<Never>.Continuation)] = [:]
        /// The last discovery message kept, until its copy through the other filter came.
        var lastDiscovery: DiscoveryCopy?
    }

    /// A discovery message as received through one filter: a copy through the other filter
    /// comes right after it (the broker queues a message's copies for a session together).
    private struct DiscoveryCopy {
        let topic: String
        let payload: [UInt8]
        let identifiers: [Int]
    }

    private let scheme: TopicScheme
    private let partitions: OwnershipPartitions
    private let metrics: OwnershipMetrics
    private let heldBytesLimit: Int
    private let state = LockedState(State())

    init(scheme: TopicScheme, partitions: OwnershipPartitions, metrics: OwnershipMetrics, heldBytesLimit: Int = 16 << 20) {
        self.scheme = scheme
        self.partitions = partitions
        self.metrics = metrics
        self.heldBytesLimit = heldBytesLimit
    }

    var filterOptions: SubscriptionOptions { Self.discoveryOptions }

    func attach(_ connection: any InboundConnection) {
        state.withLock { state in
            state.connection = connection
            connection.request(state.subscribed.keys.map { scheme.deviceInboundFilter(rawDevice: $0) }, qos: .atLeastOnce, options: Self.deviceOptions)
        }
    }

    func absorbs(topic: String, payload: [UInt8], identifiers: [Int]) -> Bool {
        guard !identifiers.isEmpty else { return false }
        if identifiers.contains(Self.markIdentifier) {
            state.withLock { $0.marks[topic] }?.arrived.finish()
            return true
        }
        guard discoveryStream(of: topic) != nil else { return false }
        // A subscribed device's hello or status matches the discovery filter and its own, and
        // mosquitto sends a copy through each, the device's first; but a message it queued for
        // the session before a restart from its persistence comes once, through one filter
        // (OverlappingSubscriptionTests). So the first copy is the frame, whichever filter it
        // came through, and only the same message through the other filter right after it is
        // dropped.
        let second = state.withLock { state -> Bool in
            if let first = state.lastDiscovery, first.topic == topic, first.payload == payload, Set(first.identifiers).isDisjoint(with: identifiers) {
                state.lastDiscovery = nil
                return true
            }
            state.lastDiscovery = DiscoveryCopy(topic: topic, payload: payload, identifiers: identifiers)
            return false
        }
        if second { metrics.duplicateDeliveries.increment() }
        return second
    }

    func hold(_ frame: RoutedFrame, device: Substring) -> Bool {
        guard discoveryStream(of: frame.frame.topic) != nil else { return false }
        let key = String(device)
        return state.withLock { state in
            if state.subscribed[key] == nil {
                // The router asked the ownership before the lock: a partition lost since must not
                // leave a subscription behind (the frame goes on as the router decided).
                guard !state.released.contains(partitions.partition(of: key)) else { return false }
                subscribe(&state, [key])
            }
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

    func connectionEvent(_ event: MQTTClientEvent) -> [RoutedFrame] {
        switch event {
        case .subscribed(let filters): return acknowledged(filters)
        case .disconnected:
            connectionLost()
            return []
        case .connected(let sessionPresent):
            let suspended = state.withLock { state in
                state.connected = true
                defer { state.suspended = [] }
                return state.suspended
            }
            // Without the session, the client sends them all again and their SUBACKs come.
            return sessionPresent ? acknowledged(suspended.map { scheme.deviceInboundFilter(rawDevice: $0) }) : []
        default: return []
        }
    }

    func partitionChanged(_ change: OwnershipChange, devices: [DeviceID]) {
        switch change {
        case .gained(let partition, _), .warming(let partition):
            state.withLock { state in
                state.released.remove(partition)
                subscribe(&state, devices.map(\.rawValue).filter { state.subscribed[$0] == nil && partitions.partition(of: $0) == partition })
            }
        case .lost(let partition):
            let dropped = state.withLock { state -> Int in
                state.released.insert(partition)
                let keys = state.byPartition.removeValue(forKey: partition) ?? []
                return unsubscribe(&state, Array(keys)).count
            }
            // Frames still waiting for a SUBACK of a lost partition: another instance has them.
            if dropped > 0 { metrics.framesNotOwned.increment(by: dropped) }
        }
    }

    func isSubscribed(partition: Int) -> Bool {
        state.withLock { state in
            // A connection loss makes every subscription pending again until its SUBACK (or the
            // CONNACK of a kept session) comes.
            state.connected && (state.byPartition[partition] ?? []).allSatisfy { state.subscribed[$0].map { !$0.isPending } ?? true }
        }
    }

    /// The discovery stream of `topic` (`{root}/{id}/hello` or `/status`), nil for any other.
    private func discoveryStream(of topic: String) -> InboundStream? {
        guard let key = TopicScheme.routingKey(of: topic, inboundRoot: scheme.inboundRoot) else { return nil }
        let prefixLength = scheme.inboundRoot.utf8.count + key.utf8.count + 2
        guard topic.utf8.count > prefixLength, let stream = InboundStream(path: Substring(topic.utf8.dropFirst(prefixLength))),
            TopicScheme.isDiscovery(stream)
        else { return nil }
        return stream
    }

    /// Delivers a mark through the subscriber's session behind everything the session queued
    /// (a stand-in's resumed session): subscribes `topic`, calls `publish` (one message to it)
    /// once the broker acknowledged, and returns when that message arrived. The broker queues a
    /// session's messages in order, so the mark comes after the backlog (checked with mosquitto:
    /// `SessionResumeTests`). Cancellable.
    func deliverMark(topic: String, publish: @Sendable () async throws -> Void) async throws {
        let (subscribed, subscribedSink) = AsyncStream.makeStream(of: Never.self)
        let (arrived, arrivedSink) = AsyncStream.makeStream(of: Never.self)
        let connection = state.withLock { state in
            state.marks[topic] = (subscribedSink, arrivedSink)
            return state.connection
        }
        defer { state.withLock { _ = $0.marks.removeValue(forKey: topic) } }
        connection?.request([topic], qos: .atLeastOnce, options: SubscriptionOptions(identifier: Self.markIdentifier, retainHandling: .never))
        for await _ in subscribed {}
        try Task.checkCancellation()
        try await publish()
        for await _ in arrived {}
        try Task.checkCancellation()
    }

    /// The broker acknowledged `filters`: the frames held for those devices, in order (a
    /// mark's filter ends that mark's wait for its SUBACK).
    private func acknowledged(_ filters: [String]) -> [RoutedFrame] {
        let (frames, pending) = state.withLock { state -> ([RoutedFrame], Int) in
            var released: [RoutedFrame] = []
            for filter in filters {
                if let mark = state.marks[filter] {
                    mark.subscribed.finish()
                    continue
                }
                guard let key = scheme.device(ofInboundFilter: filter).map(String.init), case .pending(let frames)? = state.subscribed[key] else { continue }
                released += frames
                state.pending -= 1
                state.subscribed[key] = .acknowledged
            }
            state.heldBytes -= released.reduce(0) { $0 + $1.bytes }
            return (released, state.pending)
        }
        metrics.subscriptionsPending.record(pending)
        return frames
    }

    /// The connection ended. Without a session left at the broker the subscriptions are gone
    /// until the client re-sends them, and frames wait for the new SUBACKs; with the session
    /// kept, the next CONNACK says so and the subscriptions acknowledged before hold again.
    private func connectionLost() {
        let pending = state.withLock { state in
            state.connected = false
            for (key, phase) in state.subscribed where !phase.isPending {
                state.subscribed[key] = .pending([])
                state.suspended.append(key)
            }
            state.pending = state.subscribed.count
            return state.pending
        }
        metrics.subscriptionsPending.record(pending)
    }

    /// Drops the subscriptions of `keys`; returns the frames still held for them.
    private func unsubscribe(_ state: inout State, _ keys: [String]) -> [RoutedFrame] {
        let removed = keys.filter { state.subscribed[$0] != nil }
        guard !removed.isEmpty else { return [] }
        var released: [RoutedFrame] = []
        for key in removed {
            if case .pending(let frames)? = state.subscribed.removeValue(forKey: key) {
                released += frames
                state.pending -= 1
            }
        }
        state.heldBytes -= released.reduce(0) { $0 + $1.bytes }
        state.connection?.unsubscribe(removed.map { scheme.deviceInboundFilter(rawDevice: $0) })
        metrics.deviceSubscriptions.record(state.subscribed.count)
        metrics.deviceUnsubscribes.increment(by: removed.count)
        metrics.subscriptionsPending.record(state.pending)
        return released
    }

    private func subscribe(_ state: inout State, _ keys: [String]) {
        guard !keys.isEmpty else { return }
        for key in keys {
            state.subscribed[key] = .pending([])
            state.pending += 1
            state.byPartition[partitions.partition(of: key), default: []].insert(key)
        }
        // Without a connection yet, attach() sends them.
        state.connection?.request(keys.map { scheme.deviceInboundFilter(rawDevice: $0) }, qos: .atLeastOnce, options: Self.deviceOptions)
        metrics.deviceSubscriptions.record(state.subscribed.count)
        metrics.deviceSubscribes.increment(by: keys.count)
        metrics.subscriptionsPending.record(state.pending)
    }
}
