import MQTTTransport
import TelemetryCore

extension OutboundMessage {
    /// The transport message for this outbound event.
    var mqttMessage: MQTTMessage {
        MQTTMessage(
            topic: topic, payload: payload, qos: qos, retain: retain,
            properties: MQTTProperties(contentType: contentType, messageExpiryInterval: messageExpiryInterval, userProperties: userProperties))
    }
}
