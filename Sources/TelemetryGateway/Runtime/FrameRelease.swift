import GatewayJournal
import TelemetryCore

/// When a processed frame's journal record is released: once every part of its effect is safe.
/// The parts are its outputs acknowledged by the broker, the frame processed, for a frame that
/// may change its device's snapshot that snapshot written after it, and for a held recorder
/// chunk its store write. A replayed or journal-less frame has nothing to release.
struct FrameRelease {
    /// Counts the parts down and releases the record; nil without a ticket.
    let record: ReleaseCountdown?
    /// Counts the frame's outputs' acknowledgements down, then does the record's "acknowledged"
    /// part; nil without a ticket.
    let outputs: ReleaseCountdown?

    /// - Parameters:
    ///   - messages: the outputs to be published.
    ///   - durable: the device whose outputs travel with its snapshot until acknowledged
    ///     (``UnacknowledgedOutputs``: a restart republishes them), with where they are kept;
    ///     nil when snapshots are not kept or the frame has no device.
    ///   - snapshotted: whether the record also waits for the device's next snapshot write.
    ///   - heldChunk: whether the record also waits for a held recorder chunk's store write.
    ///   - acknowledgements: clustered, what the frame's acknowledgement to the broker waits for
    ///     (``AcknowledgementsAfterOutputs``): settled once its outputs are published or withheld.
    init(
        ticket: JournalTicket?, journal: InboundJournal?, messages: [OutboundMessage], durable: (device: DeviceID, outputs: UnacknowledgedOutputs)?,
        snapshotted: Bool, heldChunk: Bool, acknowledgements: AcknowledgementsAfterOutputs? = nil
    ) {
        guard let ticket else {
            (record, outputs) = (nil, nil)
            return
        }
        let record = ReleaseCountdown(parts: 2 + (snapshotted ? 1 : 0) + (heldChunk ? 1 : 0)) { journal?.release(ticket) }
        if let durable { durable.outputs.register(durable.device, sequence: ticket.sequence, messages) }
        self.record = record
        outputs = ReleaseCountdown(parts: messages.count, onSettled: { fenced in
            if let durable { durable.outputs.acknowledged(durable.device, sequence: ticket.sequence) }
            acknowledgements?.settled(ticket.sequence, fenced: fenced)
            record.partDone()
        })
    }
}
