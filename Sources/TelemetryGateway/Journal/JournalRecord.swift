/// A message as the subscriber received it, kept in the ``InboundJournal`` until everything it
/// produced has been acknowledged by the broker.
struct JournalRecord: Sendable, Equatable {
    /// The topic it arrived on.
    var topic: String
    /// The payload bytes, as received.
    var payload: [UInt8]
    /// The MQTT 5 content type, if the publisher sent one.
    var contentType: String?
    /// Whether the broker delivered it as a retained message.
    var retained: Bool
    /// When the gateway received it, Unix epoch seconds.
    var receivedAt: Double
    /// The W3C trace context the publisher sent (MQTT 5 user property `traceparent`), if any.
    var traceparent: String? = nil

    /// Bytes the record needs in the journal, header and trailer included.
    var journalSize: Int {
        JournalLayout.recordSize(
            topicBytes: topic.utf8.count, contentTypeBytes: contentType?.utf8.count ?? 0, traceparentBytes: traceparent?.utf8.count ?? 0, payloadBytes: payload.count)
    }
}

/// Names one record in the journal, so that it can be released once it is done with.
struct JournalTicket: Sendable, Hashable, Comparable {
    /// The record's sequence number: strictly increasing in append order.
    let sequence: UInt64

    static func < (lhs: JournalTicket, rhs: JournalTicket) -> Bool { lhs.sequence < rhs.sequence }
}
