import Testing

@testable import TelemetryCore

extension OutboundMessage {
    /// A top-level string field of the JSON payload, or nil when absent or not a string.
    func string(_ key: String) -> String? {
        if case .value(let value) = JSONField.string(key, in: payload, maxBytes: 100_000) { return value }
        return nil
    }

    /// A top-level number field of the JSON payload, or nil when absent or not a number.
    func number(_ key: String) -> Double? {
        if case .value(let value) = JSONField.double(key, in: payload) { return value }
        return nil
    }
}

// Failure messages show the payload as text instead of a byte array.
extension OutboundMessage: CustomTestStringConvertible {
    public var testDescription: String {
        "\(topic) qos=\(qos) retain=\(retain) contentType=\(contentType ?? "nil") \(payloadString)"
    }
}
