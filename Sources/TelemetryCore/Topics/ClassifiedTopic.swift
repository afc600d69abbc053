/// What a received topic is, decided once by ``TopicScheme/classify(_:)``: the gateway asks
/// nothing else of a topic, and every later stage reads this.
public struct ClassifiedTopic: Sendable, Equatable {
    /// The kinds of message the gateway receives.
    public enum Kind: Sendable, Equatable {
        /// A device frame below the inbound root, parsed (or why its topic is rejected: a topic
        /// outside both roots is an invalid frame too, reported on `gateway/errors`).
        case frame(InboundTopic)
        /// A head-pose reset command for a device, below the outbound root.
        case resetPose(DeviceID)
        /// A recorder query, below the outbound root.
        case recorderQuery(RecorderQueryAddress)
    }

    /// What the message is.
    public let kind: Kind
    /// The device level of the topic, which the message's shard and ownership partition go by
    /// (a reset command goes by its device, so it stays in order with the device's frames); the
    /// whole topic when it is below neither root.
    public let routingKey: Substring

    /// Creates a classification.
    public init(kind: Kind, routingKey: Substring) {
        self.kind = kind
        self.routingKey = routingKey
    }
}

extension TopicScheme {
    /// Classifies a received topic: a device frame (parsed), a reset command or a recorder
    /// query, with its routing key. The two roots never overlap, so a topic is below one of them
    /// at most.
    /// - Parameter topic: the topic of a received message.
    public func classify(_ topic: String) -> ClassifiedTopic {
        if let key = Self.routingKey(of: topic, inboundRoot: inboundRoot) {
            return ClassifiedTopic(kind: .frame(parseInbound(topic)), routingKey: key)
        }
        guard let key = Self.routingKey(of: topic, inboundRoot: outboundRoot) else {
            return ClassifiedTopic(kind: .frame(parseInbound(topic)), routingKey: Substring(topic))
        }
        if let address = parseRecorderQuery(topic) { return ClassifiedTopic(kind: .recorderQuery(address), routingKey: key) }
        if let device = parseHeadphoneResetPose(topic) { return ClassifiedTopic(kind: .resetPose(device), routingKey: key) }
        return ClassifiedTopic(kind: .frame(parseInbound(topic)), routingKey: key)
    }
}
