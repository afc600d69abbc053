/// MQTT quality of service.
public enum MQTTQoS: Int, Sendable, Comparable, CaseIterable {
    /// Fire and forget: the publish completes once written to the socket.
    case atMostOnce = 0
    /// Acknowledged with PUBACK; may be delivered more than once.
    case atLeastOnce = 1
    /// Four-step handshake ending with PUBCOMP; delivered exactly once.
    case exactlyOnce = 2

    public static func < (lhs: MQTTQoS, rhs: MQTTQoS) -> Bool { lhs.rawValue < rhs.rawValue }
}
