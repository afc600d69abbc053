/// What ``FrameProcessor`` did with a frame, for counting and logging.
public enum FrameOutcome: Sendable, Equatable {
    /// The frame was decoded and passed validation; ``FrameResult/frame`` holds its model.
    case accepted(InboundStream)
    /// The frame was dropped; the stream is nil when the topic named none.
    case rejected(GatewayErrorCode, InboundStream?)
    /// A journal replay of a frame the device's restored state already contains (its journal
    /// sequence is at or below the snapshot's): not applied again, nothing published.
    case alreadyApplied(InboundStream)
}
