import Foundation
import Testing

@testable import TelemetryCore

extension OutboundMessage {
    /// A top-level string field of the JSON payload, or nil when absent or not a string.
    func string(_ key: String) -> String? {
        jsonObject?[key] as? String
    }

    /// A top-level number field of the JSON payload, or nil when absent or not a number.
    func number(_ key: String) -> Double? {
        (jsonObject?[key] as? NSNumber)?.doubleValue
    }

    /// The message as published about `device` on `leaf` (what the core's messages name, so
    /// that an expected message spelled out topic by topic compares equal).
    func about(_ device: String, on leaf: TopicScheme.Leaf) -> OutboundMessage {
        var message = self
        message.device = DeviceID(device)
        message.leaf = leaf
        return message
    }

    /// The message as published on one of the gateway's own topics (what the core's messages
    /// name, so that an expected message spelled out by its topic compares equal).
    func on(_ gatewayTopic: TopicScheme.GatewayTopic) -> OutboundMessage {
        var message = self
        message.gatewayTopic = gatewayTopic
        return message
    }

    /// The payload parsed with Foundation, independently of the gateway's own decoders.
    var jsonObject: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any]
    }
}

// Failure messages show the payload as text instead of a byte array.
extension OutboundMessage: CustomTestStringConvertible {
    public var testDescription: String {
        "\(topic) qos=\(qos.rawValue) retain=\(retain) contentType=\(contentType ?? "nil") \(payloadString)"
    }
}
