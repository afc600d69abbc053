/// A message the gateway publishes, independent of the MQTT client library.
public struct OutboundMessage: Sendable, Equatable, Codable {
    /// The topic to publish on, e.g. `gateway/watch-1/connection`.
    public var topic: String
    /// The payload bytes (UTF-8 JSON unless ``contentType`` says otherwise).
    public var payload: [UInt8]
    /// The MQTT quality of service: 0, 1 or 2.
    public var qos: Int
    /// Whether the broker keeps the message as the topic's last value.
    public var retain: Bool
    /// The MQTT 5 content type, or nil to send none.
    public var contentType: String?
    /// The MQTT 5 message expiry interval in seconds, or nil for no expiry.
    public var messageExpiryInterval: UInt32?
    /// MQTT 5 user properties, in order.
    public var userProperties: [UserProperty]

    /// Creates a message.
    /// - Parameters:
    ///   - topic: the topic to publish on.
    ///   - payload: the payload bytes.
    ///   - qos: the quality of service, 0, 1 or 2; defaults to 1.
    ///   - retain: whether the broker retains it; defaults to false.
    ///   - contentType: the MQTT 5 content type; defaults to `application/json`.
    ///   - messageExpiryInterval: the expiry in seconds; defaults to none.
    ///   - userProperties: MQTT 5 user properties; defaults to none.
    public init(
        topic: String,
        payload: [UInt8],
        qos: Int = 1,
        retain: Bool = false,
        contentType: String? = "application/json",
        messageExpiryInterval: UInt32? = nil,
        userProperties: [UserProperty] = []
    ) {
        precondition((0...2).contains(qos), "MQTT QoS must be 0, 1 or 2, got \(qos)")
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
        self.contentType = contentType
        self.messageExpiryInterval = messageExpiryInterval
        self.userProperties = userProperties
    }

    /// The payload as text (invalid UTF-8 is repaired), for logs and tests.
    public var payloadString: String { String(decoding: payload, as: UTF8.self) }

    /// The message with the trace context of the frame that produced it as a user property.
    public func carrying(_ traceParent: TraceParent?) -> OutboundMessage {
        guard let traceParent else { return self }
        var message = self
        message.userProperties.append(UserProperty(name: TraceParent.propertyName, value: traceParent.value))
        return message
    }
}
