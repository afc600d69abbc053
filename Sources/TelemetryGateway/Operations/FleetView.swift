import CoreMetrics
import Locking
import TelemetryCore

/// The fleet as the gateway's own outbound events describe it, for the fleet page: per
/// device the latest event of each family (model from `availability`, presence, headphone
/// connection, depth state, last swing, last error, head pose, …) and short histories of
/// submersion events (depth-state changes, temperature readings with depth, warnings) and
/// swings for the plots; plus live updates for server-sent events.
///
/// Fed with every message the gateway publishes (``observe(_:)``); it keeps the payloads as
/// they are (the gateway's JSON) and parses nothing, not even the topic (the message names its
/// device and leaf), so the workers pay a short lock and a copy. Bounded (``FleetStore``): `maxDevices` devices, `historyLimit` entries per
/// history and `maxBytes` bytes in all, what does not fit counted in
/// `gateway_fleet_view_dropped_total{what}`. At most `maxLiveClients` live subscribers: a new
/// one beyond that ends the oldest (`gateway_fleet_live_clients_dropped_total`), and each
/// buffers at most `subscriberBuffer` updates (older ones are dropped for a slow page; a
/// reload shows the snapshot).
public final class FleetView: Sendable {
    /// One item of a live stream.
    public enum LiveUpdate: Sendable, Equatable {
        /// An event: `{"deviceId":…,"family":…,"event":{…}}`.
        case event([UInt8])
        /// The last item of a stream ended because a newer subscriber took its place.
        case superseded
    }

    private typealias Subscriber = AsyncStream<LiveUpdate>.Continuation

    private struct State {
        var store: FleetStore
        var subscribers: [Int: Subscriber] = [:]
        var nextSubscriber = 0
        var closed = false
    }

    private let state: LockedState<State>
    private let subscriberBuffer: Int
    private let maxLiveClients: Int
    private let dropped: (history: Counter, events: Counter, devices: Counter)
    private let keptBytes: Gauge
    private let liveClients: Gauge
    private let liveClientsDropped: Counter

    /// Creates an empty view.
    /// - Parameters:
    ///   - maxDevices: the most devices kept; events of further devices are ignored.
    ///   - historyLimit: the most submersion events and swings kept per device.
    ///   - maxBytes: the most bytes kept (`http.fleetViewBytes`); see ``FleetStore``.
    ///   - maxLiveClients: the most live subscribers (`http.maxLiveClients`).
    ///   - subscriberBuffer: updates buffered per live subscriber.
    ///   - metricsFactory: where the drop counters and gauges are recorded.
    public init(
        maxDevices: Int = 10_000, historyLimit: Int = 500, maxBytes: Int = 32 << 20, maxLiveClients: Int = 32,
        subscriberBuffer: Int = 1024, metricsFactory: any MetricsFactory = NOOPMetricsHandler.instance
    ) {
        self.subscriberBuffer = subscriberBuffer
        self.maxLiveClients = max(1, maxLiveClients)
        state = LockedState(State(store: FleetStore(maxDevices: maxDevices, historyLimit: historyLimit, maxBytes: maxBytes)))
        func droppedCounter(_ what: String) -> Counter {
            Counter(label: "gateway_fleet_view_dropped_total", dimensions: [("what", what)], factory: metricsFactory)
        }
        dropped = (droppedCounter("history"), droppedCounter("event"), droppedCounter("device"))
        keptBytes = Gauge(label: "gateway_fleet_view_bytes", factory: metricsFactory)
        liveClients = Gauge(label: "gateway_fleet_live_clients", factory: metricsFactory)
        liveClientsDropped = Counter(label: "gateway_fleet_live_clients_dropped_total", factory: metricsFactory)
    }

    /// Takes note of a message the gateway published.
    public func observe(_ message: OutboundMessage) {
        guard message.contentType == "application/json", !message.payload.isEmpty,
            let device = message.device, let family = message.leaf?.family, family != .other, family != .deadLetter
        else { return }
        let id = device.rawValue
        // Only the store's update happens under the lock; the live update is written and
        // sent outside it (the subscribers are copied, copy-on-write).
        let (drops, bytes, subscribers) = state.withLock { state in
            let drops = state.store.record(device: id, family: family, payload: message.payload)
            return (drops, state.store.bytes, state.subscribers)
        }
        keptBytes.record(bytes)
        if drops != FleetStore.Drops() {
            if drops.history > 0 { dropped.history.increment(by: drops.history) }
            if drops.events > 0 { dropped.events.increment(by: drops.events) }
            if drops.devices > 0 {
                dropped.devices.increment(by: drops.devices)
                return
            }
        }
        // The update is only written when a page is watching.
        guard !subscribers.isEmpty else { return }
        let update = LiveUpdate.event(Self.update(device: id, family: family, payload: message.payload))
        for continuation in subscribers.values { continuation.yield(update) }
    }

    /// The whole view at this moment, to be encoded outside the lock (``FleetSnapshot``).
    public func snapshot() -> FleetSnapshot {
        FleetSnapshot(devices: state.withLock { $0.store.devices })
    }

    /// The bytes the view counts for what it keeps (see ``FleetStore``).
    public var bytes: Int { state.withLock { $0.store.bytes } }

    /// Live updates, one ``LiveUpdate/event(_:)`` per event. The stream ends at ``close()``
    /// (graceful shutdown), when the subscriber goes away, or, after a
    /// ``LiveUpdate/superseded``, when `maxLiveClients` newer subscribers came.
    public func updates() -> AsyncStream<LiveUpdate> {
        let (stream, continuation) = AsyncStream.makeStream(of: LiveUpdate.self, bufferingPolicy: .bufferingNewest(subscriberBuffer))
        let limit = maxLiveClients
        let admitted: (id: Int, superseded: Subscriber?, count: Int)? = state.withLock { state in
            guard !state.closed else { return nil }
            // Subscriber ids rise, so the smallest is the oldest.
            let superseded = state.subscribers.count >= limit ? state.subscribers.keys.min().flatMap { state.subscribers.removeValue(forKey: $0) } : nil
            let id = state.nextSubscriber
            state.nextSubscriber += 1
            state.subscribers[id] = continuation
            return (id, superseded, state.subscribers.count)
        }
        guard let admitted else {
            continuation.finish()
            return stream
        }
        let liveClients = liveClients
        continuation.onTermination = { [weak self] _ in
            guard let count = self?.state.withLock({ state in
                state.subscribers.removeValue(forKey: admitted.id)
                return state.subscribers.count
            }) else { return }
            liveClients.record(count)
        }
        liveClients.record(admitted.count)
        if let superseded = admitted.superseded {
            liveClientsDropped.increment()
            superseded.yield(.superseded)
            superseded.finish()
        }
        return stream
    }

    /// Ends every live stream and refuses new ones (the HTTP server is shutting down).
    public func close() {
        let subscribers = state.withLock { state in
            state.closed = true
            defer { state.subscribers = [:] }
            return state.subscribers.values
        }
        subscribers.forEach { $0.finish() }
    }

    private static func update(device: String, family: EventFamily, payload: [UInt8]) -> [UInt8] {
        var writer = JSONWriter(capacity: payload.count + 96)
        writer.object {
            $0.field("deviceId", device)
            $0.field("family", family.rawValue)
            $0.key("event")
            $0.raw(payload)
        }
        return writer.bytes
    }
}
