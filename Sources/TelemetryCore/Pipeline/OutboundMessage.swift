/// A message the gateway publishes, independent of the MQTT client library.
public struct OutboundMessage: Sendable, Equatable, Codable {
    /// The topic to publish on, e.g. `gateway/watch-1/connection`.
    public var topic: String
    /// The payload bytes (UTF-8 JSON unless ``contentType`` says otherwise).
    public var payload: [UInt8]
    /// The MQTT quality of service.
    public var qos: MQTTQoS
    /// Whether the broker keeps the message as the topic's last value.
    public var retain: Bool
    /// The MQTT 5 content type, or nil to send none.
    public var contentType: String?
    /// The MQTT 5 message expiry interval in seconds, or nil for no expiry.
    public var messageExpiryInterval: UInt32?
    /// MQTT 5 user properties, in order.
    public var userProperties: [UserProperty]
    /// The device the message is about, when it is published below one (`gateway/{id}/…`).
    public var device: DeviceID?
    /// The leaf it is published on, when it is one of ``TopicScheme/Leaf``: its family feeds the
    /// latency histogram and the fleet page without parsing the topic.
    public var leaf: TopicScheme.Leaf?
    /// The gateway topic it is published on, when it was made for one (``TopicScheme/GatewayTopic``).
    /// Not encoded: snapshots keep only device messages, whose ``leaf`` says what they are.
    public var gatewayTopic: TopicScheme.GatewayTopic?

    /// Whether the message reports rejected input: on a device's `errors` leaf or on the
    /// gateway's `errors` topic (`gateway_error_events_total` counts these).
    public var reportsError: Bool { leaf == .errors || gatewayTopic == .errors }

    private enum CodingKeys: String, CodingKey {
        case topic, payload, qos, retain, contentType, messageExpiryInterval, userProperties, device, leaf
    }

    /// Decodes a message; its payload as text (how this code writes a UTF-8 payload) or as an
    /// array of bytes (any other, and every payload of earlier snapshots).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        topic = try container.decode(String.self, forKey: .topic)
        if let text = try? container.decode(String.self, forKey: .payload) {
            payload = Array(text.utf8)
        } else {
            payload = try container.decode([UInt8].self, forKey: .payload)
        }
        qos = try container.decode(MQTTQoS.self, forKey: .qos)
        retain = try container.decode(Bool.self, forKey: .retain)
        contentType = try container.decodeIfPresent(String.self, forKey: .contentType)
        messageExpiryInterval = try container.decodeIfPresent(UInt32.self, forKey: .messageExpiryInterval)
        userProperties = try container.decode([UserProperty].self, forKey: .userProperties)
        device = try container.decodeIfPresent(DeviceID.self, forKey: .device)
        leaf = try container.decodeIfPresent(TopicScheme.Leaf.self, forKey: .leaf)
    }

    /// Encodes a message; a UTF-8 payload (JSON, the Prometheus text) as text, a third of the
    /// size of an array of byte values, any other as bytes.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(topic, forKey: .topic)
        if let text = String(validating: payload, as: UTF8.self) {
            try container.encode(text, forKey: .payload)
        } else {
            try container.encode(payload, forKey: .payload)
        }
        try container.encode(qos, forKey: .qos)
        try container.encode(retain, forKey: .retain)
        try container.encodeIfPresent(contentType, forKey: .contentType)
        try container.encodeIfPresent(messageExpiryInterval, forKey: .messageExpiryInterval)
        try container.encode(userProperties, forKey: .userProperties)
        try container.encodeIfPresent(device, forKey: .device)
        try container.encodeIfPresent(leaf, forKey: .leaf)
    }

    /// Creates a message.
    /// - Parameters:
    ///   - topic: the topic to publish on.
    ///   - payload: the payload bytes.
    ///   - qos: the quality of service; defaults to at least once.
    ///   - retain: whether the broker retains it; defaults to false.
    ///   - contentType: the MQTT 5 content type; defaults to `application/json`.
    ///   - messageExpiryInterval: the expiry in seconds; defaults to none.
    ///   - userProperties: MQTT 5 user properties; defaults to none.
    public init(
        topic: String,
        payload: [UInt8],
        qos: MQTTQoS = .atLeastOnce,
        retain: Bool = false,
        contentType: String? = "application/json",
        messageExpiryInterval: UInt32? = nil,
        userProperties: [UserProperty] = []
    ) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
        self.contentType = contentType
        self.messageExpiryInterval = messageExpiryInterval
        self.userProperties = userProperties
    }

    /// Creates a message on a device's leaf, with the leaf's QoS and retain flag.
    /// - Parameters:
    ///   - leaf: the leaf, e.g. ``TopicScheme/Leaf/swing``.
    ///   - device: the device.
    ///   - scheme: the topic layout.
    ///   - payload: the payload bytes.
    ///   - contentType: the MQTT 5 content type; defaults to `application/json`.
    ///   - userProperties: MQTT 5 user properties; defaults to none.
    public init(
        _ leaf: TopicScheme.Leaf, of device: DeviceID, in scheme: TopicScheme, payload: [UInt8], contentType: String? = "application/json",
        userProperties: [UserProperty] = []
    ) {
        self.init(
            topic: scheme.deviceTopic(device, leaf), payload: payload, qos: leaf.qos, retain: leaf.retain, contentType: contentType,
            userProperties: userProperties)
        self.device = device
        self.leaf = leaf
    }

    /// Creates a message on one of the gateway's own topics, with its QoS and retain flag.
    /// - Parameters:
    ///   - topic: which topic, e.g. ``TopicScheme/GatewayTopic/errors``.
    ///   - scheme: the topic layout.
    ///   - payload: the payload bytes.
    ///   - contentType: the MQTT 5 content type; defaults to `application/json`.
    ///   - userProperties: MQTT 5 user properties; defaults to none.
    public init(
        _ topic: TopicScheme.GatewayTopic, in scheme: TopicScheme, payload: [UInt8], contentType: String? = "application/json",
        userProperties: [UserProperty] = []
    ) {
        self.init(
            topic: scheme.topic(topic), payload: payload, qos: topic.qos, retain: topic.retain, contentType: contentType,
            userProperties: userProperties)
        gatewayTopic = topic
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
