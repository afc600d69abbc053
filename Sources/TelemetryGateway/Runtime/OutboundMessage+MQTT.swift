import CoreMetrics
import Foundation
import Logging
import MQTTTransport
import ServiceLifecycle
import TelemetryCore

extension OutboundMessage {
    /// The transport message for this outbound event.
    var mqttMessage: MQTTMessage {
        MQTTMessage(
            topic: topic, payload: payload, qos: MQTTQoS(rawValue: qos) ?? .atLeastOnce, retain: retain,
            properties: MQTTProperties(
                contentType: contentType, messageExpiryInterval: messageExpiryInterval,
                userProperties: userProperties.map { .init(name: $0.name, value: $0.value) }))
    }
}
