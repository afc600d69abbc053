/// The result of processing one frame: its outcome and the messages to publish now.
public struct FrameResult: Sendable, Equatable {
    /// Whether the frame was accepted or rejected, and why.
    public var outcome: FrameOutcome
    /// Messages to publish, in order (error reports, presence changes); often empty.
    public var messages: [OutboundMessage]

    /// Creates a result.
    /// - Parameters:
    ///   - outcome: the frame's outcome.
    ///   - messages: the messages to publish.
    public init(outcome: FrameOutcome, messages: [OutboundMessage] = []) {
        self.outcome = outcome
        self.messages = messages
    }
}
