/// An application message, as received from or published to the broker.
public struct MQTTMessage: Sendable, Equatable {
    /// The topic name (no wildcards).
    public var topic: String
    /// The payload bytes, copied out of libmosquitto's buffer. A received payload's array keeps
    /// ``receivedPayloadReadAhead`` bytes of spare capacity after them (see there).
    public var payload: [UInt8]
    /// Quality of service of the delivery.
    public var qos: MQTTQoS
    /// The retain flag: on publish, ask the broker to keep it; on receipt, it came from the
    /// broker's retained store rather than a live publish.
    public var retain: Bool
    /// MQTT 5 properties.
    public var properties: MQTTProperties

    /// Creates a message.
    public init(
        topic: String,
        payload: [UInt8],
        qos: MQTTQoS = .atLeastOnce,
        retain: Bool = false,
        properties: MQTTProperties = MQTTProperties()
    ) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
        self.properties = properties
    }

    /// Creates a message with a UTF-8 string payload.
    public init(
        topic: String,
        string: String,
        qos: MQTTQoS = .atLeastOnce,
        retain: Bool = false,
        properties: MQTTProperties = MQTTProperties()
    ) {
        self.init(topic: topic, payload: Array(string.utf8), qos: qos, retain: retain, properties: properties)
    }

    /// The payload decoded as UTF-8 (invalid sequences are replaced).
    public var payloadString: String { String(decoding: payload, as: UTF8.self) }

    /// Bytes of spare capacity (spaces) after a received payload in its array. A parser that reads
    /// ahead in wide blocks (simdjson: 64 bytes) can then read the payload where it is, as long as
    /// the array is not copied, instead of copying it once more into a padded buffer of its own.
    public static let receivedPayloadReadAhead = 64
}
