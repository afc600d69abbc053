/// What ``FrameProcessor`` did with a frame, for counting and logging.
public enum FrameOutcome: Sendable, Equatable {
    /// The frame was decoded and passed validation; ``FrameResult/frame`` holds its model.
    case accepted(InboundStream)
    /// The frame was dropped; the stream is nil when the topic named none.
    case rejected(GatewayErrorCode, InboundStream?)
}
