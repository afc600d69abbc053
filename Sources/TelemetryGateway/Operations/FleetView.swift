import Synchronization
import TelemetryCore

/// The fleet as the gateway's own outbound events describe it, for the fleet page: per
/// device the latest event of each family (model from `availability`, presence, headphone
/// connection, depth state, last swing, last error, head pose, …) and short histories of
/// submersion events (depth-state changes, temperature readings with depth, warnings) and
/// swings for the plots; plus live updates for server-sent events.
///
/// Fed with every message the gateway publishes (``observe(_:)``); it keeps the payloads as
/// they are (the gateway's JSON) and parses nothing, so the workers pay a topic split, a lock
/// and a copy. Bounded: `maxDevices` devices, `historyLimit` entries per history, and each
/// live subscriber buffers at most `subscriberBuffer` updates (older ones are dropped for a
/// slow page; a reload shows the snapshot).
public final class FleetView: Sendable {
    private struct Device {
        var latest: [EventFamily: [UInt8]] = [:]
        var depthHistory: [[UInt8]] = []
        var swings: [[UInt8]] = []
    }

    private struct State {
        var devices: [String: Device] = [:]
        var subscribers: [Int: AsyncStream<[UInt8]>.Continuation] = [:]
        var nextSubscriber = 0
        var closed = false
    }

    private let state = Mutex(State())
    private let outboundRoot: String
    private let maxDevices: Int
    private let historyLimit: Int
    private let subscriberBuffer: Int

    /// Creates an empty view.
    /// - Parameters:
    ///   - outboundRoot: the root the gateway publishes under (`topics.outboundRoot`).
    ///   - maxDevices: the most devices kept; events of further devices are ignored.
    ///   - historyLimit: the most submersion events and swings kept per device.
    ///   - subscriberBuffer: updates buffered per live subscriber.
    public init(outboundRoot: String, maxDevices: Int = 10_000, historyLimit: Int = 500, subscriberBuffer: Int = 1024) {
        self.outboundRoot = outboundRoot
        self.maxDevices = maxDevices
        self.historyLimit = historyLimit
        self.subscriberBuffer = subscriberBuffer
    }

    /// Takes note of a message the gateway published.
    public func observe(_ message: OutboundMessage) {
        guard message.contentType == "application/json", !message.payload.isEmpty,
            let (device, _, family) = EventFamily.parse(message.topic, outboundRoot: outboundRoot), family != .other, family != .deadLetter
        else { return }
        let id = String(device)
        let limit = historyLimit
        state.withLock { state in
            guard state.devices[id] != nil || state.devices.count < maxDevices else { return }
            state.devices[id, default: Device()].latest[family] = message.payload
            switch family {
            // Depth-state changes carry the state; temperature readings and warnings add depth points.
            case .depthState, .submersion: Self.append(message.payload, to: &state.devices[id, default: Device()].depthHistory, limit: limit)
            case .swing: Self.append(message.payload, to: &state.devices[id, default: Device()].swings, limit: limit)
            default: break
            }
            // The update is only written when a page is watching.
            guard !state.subscribers.isEmpty else { return }
            let update = Self.update(device: id, family: family, payload: message.payload)
            for continuation in state.subscribers.values { continuation.yield(update) }
        }
    }

    /// The whole view as JSON: `{"devices":[{"deviceId":…,"latest":{family: event},"depthHistory":[…],"swings":[…]}]}`,
    /// devices sorted by id.
    public func snapshot() -> [UInt8] {
        let devices = state.withLock { $0.devices }
        var writer = JSONWriter(capacity: 4096)
        writer.object {
            $0.field("devices", array: { list in
                for (id, device) in devices.sorted(by: { $0.key < $1.key }) {
                    list.object {
                        $0.field("deviceId", id)
                        $0.field("latest", object: { latest in
                            for (family, payload) in device.latest.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                                latest.key(family.rawValue)
                                latest.raw(payload)
                            }
                        })
                        $0.field("depthHistory", array: { history in device.depthHistory.forEach { history.raw($0) } })
                        $0.field("swings", array: { history in device.swings.forEach { history.raw($0) } })
                    }
                }
            })
        }
        return writer.bytes
    }

    /// Live updates, one JSON object per event: `{"deviceId":…,"family":…,"event":{…}}`. The
    /// stream ends at ``close()`` (graceful shutdown) or when the subscriber goes away.
    public func updates() -> AsyncStream<[UInt8]> {
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .bufferingNewest(subscriberBuffer))
        let id: Int? = state.withLock { state in
            guard !state.closed else { return nil }
            let id = state.nextSubscriber
            state.nextSubscriber += 1
            state.subscribers[id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
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

    private static func append(_ payload: [UInt8], to history: inout [[UInt8]], limit: Int) {
        history.append(payload)
        if history.count > limit { history.removeFirst(history.count - limit) }
    }
}
