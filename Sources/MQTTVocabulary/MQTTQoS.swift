/// MQTT quality of service, as the core's messages, the transport and the wire contract's
/// tables spell it. Encoded (`Codable`) as its raw value, the wire's 0, 1 or 2.
public enum MQTTQoS: Int, Sendable, Comparable, CaseIterable, Codable {
    /// Fire and forget: the publish completes once written to the socket.
    case atMostOnce = 0
    /// Acknowledged with PUBACK; may be delivered more than once.
    case atLeastOnce = 1
    /// Four-step handshake ending with PUBCOMP; delivered exactly once.
    case exactlyOnce = 2

    public static func < (lhs: MQTTQoS, rhs: MQTTQoS) -> Bool { lhs.rawValue < rhs.rawValue }
}
