/// A rejected frame republished unchanged for inspection: the original payload bytes on
/// `gateway/{id}/dead-letter` (or `gateway/dead-letter` without a valid device id), with why
/// it was rejected in MQTT 5 user properties. QoS 1, not retained.
enum DeadLetter {
    /// The user property names, in the order they are sent.
    static let propertyNames = ["code", "cmError", "detail", "stream", "sourceTopic", "contentType"]

    /// The dead-letter message of `frame`.
    /// - Parameters:
    ///   - frame: the rejected frame (its payload is sent byte for byte).
    ///   - code: why it was rejected.
    ///   - stream: its stream, when the topic named one.
    ///   - detail: the same detail the error report carries.
    ///   - device: the frame's device, when its topic named a valid one.
    ///   - scheme: the topic layout.
    static func message(
        for frame: InboundFrame, code: GatewayErrorCode, stream: InboundStream?, detail: String, device: DeviceID?, scheme: TopicScheme
    ) -> OutboundMessage {
        var properties = [
            UserProperty(name: "code", value: code.rawValue),
            UserProperty(name: "cmError", value: code.cmError.map(String.init) ?? ""),
            UserProperty(name: "detail", value: detail),
            UserProperty(name: "stream", value: stream?.rawValue ?? ""),
            // Bounded: a topic may be 64 KiB of attacker-chosen text.
            UserProperty(name: "sourceTopic", value: TopicScheme.bounded(frame.topic, maxScalars: FrameProcessor.maxReportedTopicScalars)),
        ]
        if let contentType = frame.contentType {
            properties.append(UserProperty(name: "contentType", value: TopicScheme.bounded(contentType)))
        }
        // The original content type also stays the message's own, so tools decode it as before.
        guard let device else {
            return OutboundMessage(.deadLetter, in: scheme, payload: frame.payload, contentType: frame.contentType, userProperties: properties)
        }
        return OutboundMessage(.deadLetter, of: device, in: scheme, payload: frame.payload, contentType: frame.contentType, userProperties: properties)
    }
}
