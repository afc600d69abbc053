/// A W3C Trace Context `traceparent` value (`version-traceid-parentid-flags`, lower-case hex),
/// as a publisher sends it in the MQTT 5 user property `traceparent`. The gateway copies a
/// frame's onto every message the frame produced, so a trace follows a frame to its events.
public struct TraceParent: Sendable, Equatable {
    /// The header value, validated.
    public let value: String

    /// The user property name (the W3C header name).
    public static let propertyName = "traceparent"

    /// Validates `text`: 55 characters for version 00 (a later version may append fields after
    /// a dash), hex fields of 2, 32, 16 and 2 digits, a version other than `ff`, and trace and
    /// parent ids that are not all zeros. Nil for anything else (it is dropped, not repaired).
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 55 || (bytes.count > 55 && bytes[55] == UInt8(ascii: "-")) else { return nil }
        func hex(_ range: Range<Int>) -> Bool {
            bytes[range].allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
        }
        func zeros(_ range: Range<Int>) -> Bool { bytes[range].allSatisfy { $0 == UInt8(ascii: "0") } }
        let dash = UInt8(ascii: "-")
        guard bytes[2] == dash, bytes[35] == dash, bytes[52] == dash, hex(0..<2), hex(3..<35), hex(36..<52), hex(53..<55),
            !(bytes[0] == UInt8(ascii: "f") && bytes[1] == UInt8(ascii: "f")), !zeros(3..<35), !zeros(36..<52)
        else { return nil }
        // Version 00 has exactly these fields.
        if bytes[0] == UInt8(ascii: "0") && bytes[1] == UInt8(ascii: "0") && bytes.count != 55 { return nil }
        value = text
    }

    /// The first valid `traceparent` among MQTT 5 user properties, if any.
    public static func first(in properties: [(name: String, value: String)]) -> TraceParent? {
        properties.lazy.filter { $0.name == propertyName }.compactMap { TraceParent($0.value) }.first
    }
}
