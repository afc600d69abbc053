import Foundation
import MQTTTransport

/// A derived event's identity: the topic it was published on and its `eventId`.
///
/// Event ids hash what the event was derived from (device, timestamps), never arrival times,
/// so the same input gives the same keys in any run: a replay into a fresh gateway, or the
/// same seed in another encoding, can be compared as sets of keys.
public struct DerivedEventKey: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The topic, e.g. `gateway/watch-s9-1/swing`.
    public var topic: String
    /// The event's `eventId` (16 hex digits).
    public var eventId: String

    /// Creates a key.
    public init(topic: String, eventId: String) {
        self.topic = topic
        self.eventId = eventId
    }

    /// The key of a derived event message; nil when its payload has no `eventId`.
    /// - Parameter message: a message the gateway published.
    public init?(_ message: MQTTMessage) {
        guard let object = message.jsonObject, let eventId = object["eventId"] as? String else { return nil }
        self.init(topic: message.topic, eventId: eventId)
    }

    public var description: String { "\(topic) \(eventId)" }

    public static func < (lhs: DerivedEventKey, rhs: DerivedEventKey) -> Bool {
        (lhs.topic, lhs.eventId) < (rhs.topic, rhs.eventId)
    }
}

extension MQTTMessage {
    /// The payload as a JSON object, or nil when it is not one (Foundation's parser,
    /// independent of the gateway's decoders).
    public var jsonObject: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any]
    }
}
