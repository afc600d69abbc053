import TelemetryCore

/// The kind of a derived event, from its topic: the bounded `family` label of the latency
/// histogram (`gateway_event_latency_seconds`) and the fleet page's message kinds.
enum EventFamily: String, Sendable, CaseIterable {
    case connection
    case availability
    case errors
    case deadLetter = "dead_letter"
    case depthState = "depth_state"
    case submersion
    case headphoneConnection = "headphone_connection"
    case headphonePose = "headphone_pose"
    case headphone
    case swing
    case tennisStroke = "tennis_stroke"
    case runSegment = "run_segment"
    case tremor
    case other

    /// The family of a per-device topic's leaf (the levels below `gateway/{id}/`).
    init(leaf: Substring) {
        switch leaf {
        case "connection": self = .connection
        case "availability": self = .availability
        case "errors": self = .errors
        case "dead-letter": self = .deadLetter
        case "submersion/depth-state": self = .depthState
        case "headphone/connection": self = .headphoneConnection
        case "headphone/pose": self = .headphonePose
        case "swing": self = .swing
        case "tennis/stroke": self = .tennisStroke
        case "tremor": self = .tremor
        default:
            if leaf.hasPrefix("submersion/") {
                self = .submersion
            } else if leaf.hasPrefix("headphone/") {
                self = .headphone
            } else if leaf.hasPrefix("pedometer/") {
                self = .runSegment
            } else {
                self = .other
            }
        }
    }

    /// Splits `gateway/{id}/leaf` into the device id and the family; nil for gateway-wide topics.
    static func parse(_ topic: String, outboundRoot: String) -> (device: Substring, leaf: Substring, family: EventFamily)? {
        guard topic.hasPrefix(outboundRoot) else { return nil }
        let rest = topic.dropFirst(outboundRoot.count)
        guard rest.first == "/" else { return nil }
        let path = rest.dropFirst()
        guard let slash = path.firstIndex(of: "/") else { return nil }
        let leaf = path[path.index(after: slash)...]
        return (path[..<slash], leaf, EventFamily(leaf: leaf))
    }
}
