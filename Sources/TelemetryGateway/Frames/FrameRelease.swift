import GatewayJournal
import TelemetryCore

/// The one way a journal record is let go: made where the record is written (or replayed), by
/// ``JournalAppender``, carried with its frame, and settled once every part of the frame's effect
/// is safe. Clustered, settling it also settles the frame's acknowledgement to the broker
/// (``AcknowledgementsAfterOutputs``).
struct FrameRelease: Sendable {
    let ticket: JournalTicket
    private let journal: InboundJournal
    /// Clustered with a journal: what the frame's broker acknowledgement waits for.
    private let acknowledgements: AcknowledgementsAfterOutputs?

    init(ticket: JournalTicket, journal: InboundJournal, acknowledgements: AcknowledgementsAfterOutputs?) {
        self.ticket = ticket
        self.journal = journal
        self.acknowledgements = acknowledgements
    }

    /// The record's journal sequence.
    var sequence: UInt64 { ticket.sequence }

    /// Lets the record go at once: nothing here applies it (a replayed record of a partition
    /// another instance holds now).
    func now() {
        journal.release(ticket)
        acknowledgements?.settled(ticket.sequence, fenced: false)
    }

    /// The countdowns of a processed frame. The record goes once its outputs are acknowledged by
    /// the broker (or withheld because another holder publishes them), the frame is processed
    /// (the caller's last part), and, if so, the device's next snapshot is written after it and a
    /// held recorder chunk is stored.
    /// - Parameters:
    ///   - messages: the outputs to be published.
    ///   - durable: the device whose outputs travel with its snapshot until acknowledged
    ///     (``UnacknowledgedOutputs``: a restart republishes them), with where they are kept;
    ///     nil when snapshots are not kept or the frame has no device.
    ///   - snapshotted: whether the record also waits for the device's next snapshot write.
    ///   - heldChunk: whether the record also waits for a held recorder chunk's store write.
    /// - Returns: `record`, whose parts are the frame's own (done by the caller last), the
    ///   snapshot's and the chunk's; and `outputs`, one part per message, which does the record's
    ///   "acknowledged" part when settled.
    func countdowns(
        messages: [OutboundMessage], durable: (device: DeviceID, outputs: UnacknowledgedOutputs)?, snapshotted: Bool, heldChunk: Bool
    ) -> (record: ReleaseCountdown, outputs: ReleaseCountdown) {
        let (ticket, journal, acknowledgements) = (ticket, journal, acknowledgements)
        let record = ReleaseCountdown(parts: 2 + (snapshotted ? 1 : 0) + (heldChunk ? 1 : 0)) { journal.release(ticket) }
        if let durable { durable.outputs.register(durable.device, sequence: ticket.sequence, messages) }
        let outputs = ReleaseCountdown(parts: messages.count, onSettled: { fenced in
            if let durable { durable.outputs.acknowledged(durable.device, sequence: ticket.sequence) }
            acknowledgements?.settled(ticket.sequence, fenced: fenced)
            record.partDone()
        })
        return (record, outputs)
    }
}
