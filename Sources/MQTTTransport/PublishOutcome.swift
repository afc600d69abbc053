/// How one publish ended, as told to the handler given to ``MQTTClient/send(_:onComplete:)``.
public enum PublishOutcome: Sendable, Equatable {
    /// The broker acknowledged it (PUBACK for QoS 1, PUBCOMP for QoS 2) or, for QoS 0, it was
    /// written to the socket.
    case acknowledged
    /// The broker answered with a failure reason code (e.g. 0x87 not authorized). Sending it
    /// again would get the same answer.
    case rejected(reasonCode: Int)
    /// The client gave it up without an answer: shut down while it was outstanding, or a QoS 0
    /// message queued when the connection dropped. The broker may or may not have it.
    case abandoned
}
