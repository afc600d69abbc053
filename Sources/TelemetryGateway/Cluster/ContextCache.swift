import TelemetryCore

/// The latest context frames of every device this instance heard of: the frames whose effect
/// outlives them (`hello`, `status`, `authorization`, `workout`, `headphone/connection`). A
/// device's new owner replays them before its first frame, so the device's access state and
/// workout session are as the previous owner had them. Bounded in devices (oldest first out).
struct ContextCache: Sendable {
    /// The streams whose latest frame is kept.
    static let streams: Set<InboundStream> = [.hello, .status, .authorization, .workout, .headphoneConnection]

    /// A kept frame and its arrival order.
    struct Entry: Sendable {
        var frame: InboundFrame
        var order: UInt64
    }

    let limit: Int
    private var devices: [String: [InboundStream: Entry]] = [:]
    private var arrival: [String] = []
    private var arrivalHead = 0
    private var counter: UInt64 = 0

    init(limit: Int) { self.limit = max(1, limit) }

    /// Devices with kept frames.
    var count: Int { devices.count }

    /// Keeps `frame` as the latest of its stream for the device `key`.
    mutating func keep(_ frame: InboundFrame, stream: InboundStream, key: String) {
        counter += 1
        if devices[key] == nil {
            devices[key] = [:]
            arrival.append(key)
            evict()
        }
        devices[key]![stream] = Entry(frame: frame, order: counter)
    }

    /// The kept frames of a device in arrival order.
    func frames(of key: String) -> [InboundFrame] {
        (devices[key]?.values.sorted { $0.order < $1.order } ?? []).map(\.frame)
    }

    private mutating func evict() {
        while devices.count > limit, arrivalHead < arrival.count {
            devices[arrival[arrivalHead]] = nil
            arrivalHead += 1
        }
        // Compact once the consumed prefix dominates.
        if arrivalHead > 1024, arrivalHead * 2 > arrival.count {
            arrival.removeFirst(arrivalHead)
            arrivalHead = 0
        }
    }

    /// The context stream of `topic`, whose device level is `key` below `root`; nil for any other stream.
    static func stream(of topic: String, key: Substring, root: String) -> InboundStream? {
        guard let stream = inboundStream(of: topic, key: key, root: root), streams.contains(stream) else { return nil }
        return stream
    }

    /// The stream of `topic`, whose device level is `key` below `root`; nil when it names none.
    static func inboundStream(of topic: String, key: Substring, root: String) -> InboundStream? {
        // root + "/" + key + "/" is the prefix (routingKey found them there).
        let prefixLength = root.utf8.count + key.utf8.count + 2
        guard topic.utf8.count > prefixLength else { return nil }
        return InboundStream(path: Substring(topic.utf8.dropFirst(prefixLength)))
    }
}
