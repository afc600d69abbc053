import MQTTTransport
import TelemetryCore

extension MQTTMessage {
    /// A message on one of the gateway's own topics, with that topic's QoS and retain flag.
    /// - Parameters:
    ///   - topic: which topic, e.g. ``TopicScheme/GatewayTopic/status``.
    ///   - scheme: the topic layout.
    ///   - payload: the payload bytes.
    ///   - properties: the MQTT 5 properties.
    init(_ topic: TopicScheme.GatewayTopic, in scheme: TopicScheme, payload: [UInt8], properties: MQTTProperties) {
        self.init(topic: scheme.topic(topic), payload: payload, qos: topic.qos, retain: topic.retain, properties: properties)
    }
}
