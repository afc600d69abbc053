import Foundation
import MQTTTransport

/// One frame of a ``SessionCapture``: an MQTT message as the recorder received it.
public struct CapturedFrame: Sendable, Equatable, Codable {
    /// Seconds from the start of the recording to the frame's arrival.
    public var time: Double
    /// The topic.
    public var topic: String
    /// The QoS the recorder received it with (its subscription asks for QoS 2, so this is the
    /// publisher's QoS).
    public var qos: MQTTQoS
    /// The retain flag as the publisher set it (the recorder subscribes with MQTT 5
    /// "retain as published").
    public var retain: Bool
    /// Delivered from the broker's retained store when the recording began, not published
    /// during it. Replay publishes these first.
    public var stored: Bool
    /// The payload bytes.
    public var payload: [UInt8]
    /// The MQTT 5 properties.
    public var properties: MQTTProperties

    /// Creates a frame.
    public init(time: Double, topic: String, qos: MQTTQoS, retain: Bool, stored: Bool, payload: [UInt8], properties: MQTTProperties = MQTTProperties()) {
        self.time = time
        self.topic = topic
        self.qos = qos
        self.retain = retain
        self.stored = stored
        self.payload = payload
        self.properties = properties
    }

    /// The frame of a received message.
    public init(_ message: MQTTMessage, time: Double, stored: Bool) {
        self.init(
            time: time, topic: message.topic, qos: message.qos, retain: message.retain, stored: stored, payload: message.payload,
            properties: message.properties)
    }

    /// The message to publish for this frame: same topic, payload, QoS, retain flag and properties.
    public var message: MQTTMessage {
        MQTTMessage(topic: topic, payload: payload, qos: qos, retain: retain, properties: properties)
    }

    // MARK: Codable (the line format of docs/testing.md)

    private enum CodingKeys: String, CodingKey {
        case time = "t", topic, qos, retain, stored, payload, properties
    }

    private enum PropertyKeys: String, CodingKey {
        case contentType, messageExpiryInterval, responseTopic, correlationData, userProperties
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        time = try container.decode(Double.self, forKey: .time)
        topic = try container.decode(String.self, forKey: .topic)
        let level = try container.decode(Int.self, forKey: .qos)
        guard let qos = MQTTQoS(rawValue: level) else {
            throw DecodingError.dataCorruptedError(forKey: .qos, in: container, debugDescription: "qos must be 0, 1 or 2, not \(level)")
        }
        self.qos = qos
        retain = try container.decodeIfPresent(Bool.self, forKey: .retain) ?? false
        stored = try container.decodeIfPresent(Bool.self, forKey: .stored) ?? false
        payload = Array(try container.decode(Data.self, forKey: .payload))
        properties = MQTTProperties()
        if container.contains(.properties) {
            let nested = try container.nestedContainer(keyedBy: PropertyKeys.self, forKey: .properties)
            properties.contentType = try nested.decodeIfPresent(String.self, forKey: .contentType)
            properties.messageExpiryInterval = try nested.decodeIfPresent(UInt32.self, forKey: .messageExpiryInterval)
            properties.responseTopic = try nested.decodeIfPresent(String.self, forKey: .responseTopic)
            properties.correlationData = try nested.decodeIfPresent(Data.self, forKey: .correlationData).map(Array.init)
            properties.userProperties = try (nested.decodeIfPresent([[String]].self, forKey: .userProperties) ?? []).map { pair in
                guard pair.count == 2 else {
                    throw DecodingError.dataCorruptedError(
                        forKey: .userProperties, in: nested, debugDescription: "a user property is a [name, value] pair")
                }
                return UserProperty(name: pair[0], value: pair[1])
            }
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(time, forKey: .time)
        try container.encode(topic, forKey: .topic)
        try container.encode(qos, forKey: .qos)
        try container.encode(retain, forKey: .retain)
        try container.encode(stored, forKey: .stored)
        try container.encode(Data(payload), forKey: .payload)
        guard !properties.isEmpty else { return }
        var nested = container.nestedContainer(keyedBy: PropertyKeys.self, forKey: .properties)
        try nested.encodeIfPresent(properties.contentType, forKey: .contentType)
        try nested.encodeIfPresent(properties.messageExpiryInterval, forKey: .messageExpiryInterval)
        try nested.encodeIfPresent(properties.responseTopic, forKey: .responseTopic)
        try nested.encodeIfPresent(properties.correlationData.map { Data($0) }, forKey: .correlationData)
        if !properties.userProperties.isEmpty {
            try nested.encode(properties.userProperties.map { [$0.name, $0.value] }, forKey: .userProperties)
        }
    }
}
