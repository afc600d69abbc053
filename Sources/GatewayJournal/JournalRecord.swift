/// A message as the subscriber received it, kept in the ``InboundJournal`` until everything it
/// produced has been acknowledged by the broker.
package struct JournalRecord: Sendable, Equatable {
    /// The topic it arrived on.
    package var topic: String
    /// The payload bytes, as received.
    package var payload: [UInt8]
    /// The MQTT 5 content type, if the publisher sent one.
    package var contentType: String?
    /// Whether the broker delivered it as a retained message.
    package var retained: Bool
    /// When the gateway received it, Unix epoch seconds.
    package var receivedAt: Double
    /// The W3C trace context the publisher sent (MQTT 5 user property `traceparent`), if any.
    package var traceparent: String? = nil

    /// A record of a received message.
    package init(topic: String, payload: [UInt8], contentType: String? = nil, retained: Bool, receivedAt: Double, traceparent: String? = nil) {
        self.topic = topic
        self.payload = payload
        self.contentType = contentType
        self.retained = retained
        self.receivedAt = receivedAt
        self.traceparent = traceparent
    }

    /// Bytes the record needs in the journal, header and trailer included.
    package var journalSize: Int {
        JournalLayout.recordSize(
            topicBytes: topic.utf8.count, contentTypeBytes: contentType?.utf8.count ?? 0, traceparentBytes: traceparent?.utf8.count ?? 0, payloadBytes: payload.count)
    }
}

/// Names one record in the journal, so that it can be released once it is done with.
package struct JournalTicket: Sendable, Hashable, Comparable {
    /// The record's sequence number: strictly increasing in append order.
    package let sequence: UInt64

    package static func < (lhs: JournalTicket, rhs: JournalTicket) -> Bool { lhs.sequence < rhs.sequence }
}
