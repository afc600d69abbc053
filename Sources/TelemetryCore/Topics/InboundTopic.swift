/// The result of parsing an inbound topic with ``TopicScheme/parseInbound(_:)``.
public enum InboundTopic: Sendable, Equatable {
    /// The topic names a valid device id and a contract stream.
    case device(DeviceID, InboundStream)
    /// The topic is unusable; the rejection says why.
    case invalid(TopicRejection)
}
