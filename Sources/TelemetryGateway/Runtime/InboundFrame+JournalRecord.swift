import GatewayJournal
import TelemetryCore

extension InboundFrame {
    /// The frame a journal record holds (live or replayed), with its record's sequence and the
    /// trace context it arrived with.
    init(_ record: JournalRecord, sequence: UInt64?) {
        self.init(topic: record.topic, payload: record.payload, contentType: record.contentType, retained: record.retained, receivedAt: record.receivedAt)
        journalSequence = sequence
        traceParent = record.traceparent.flatMap(TraceParent.init)
    }
}
