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

    /// The payload parsed with Foundation, independently of the gateway's own decoders.
    var jsonObject: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any]
    }
}

// Failure messages show the payload as text instead of a byte array.
extension OutboundMessage: CustomTestStringConvertible {
    public var testDescription: String {
        "\(topic) qos=\(qos) retain=\(retain) contentType=\(contentType ?? "nil") \(payloadString)"
    }
}
