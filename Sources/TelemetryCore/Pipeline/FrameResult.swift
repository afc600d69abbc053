/// The result of processing one frame: its outcome, the messages to publish now and, when it was
/// accepted, the decoded model for the worker.
public struct FrameResult: Sendable, Equatable {
    /// Whether the frame was accepted or rejected, and why.
    public var outcome: FrameOutcome
    /// Messages to publish, in order (error reports, presence changes); often empty.
    public var messages: [OutboundMessage]
    /// The decoded, validated frame when it was accepted; later stages derive events from it.
    public var frame: DecodedFrame?
    /// What the frame's `sequence` said about its stream, when it was accepted and numbered; the
    /// gateway counts gaps, duplicates and reorders from it.
    public var sequence: SequenceObservation?
    /// Why the payload was rejected, when its content type, decoding or validation failed; its
    /// ``PayloadProblem/reason`` is a bounded metric dimension.
    public var problem: PayloadProblem?
    /// For an accepted frame, the device's maximum submersion depth in metres resolved from its
    /// entitlements (6 for `submersion.shallow`, 40 for `submersion.full`), if any.
    public var maximumDepth: Double?
    /// For a rejected frame while dead letters are enabled: whether its dead letter is among
    /// ``messages`` or was dropped by the rate limit.
    public var deadLetter: DeadLetterOutcome?
    /// What the derivations counted while deriving from this frame (strokes by kind, an
    /// untracked device's frame, dropped swing candidates), for metrics.
    public var derived = DerivationTally()
    /// Whether the frame's effect lives in its device's snapshot (``DeviceSnapshot``): it was
    /// applied to a device with state on a stream that can change one. A rejected frame, an
    /// already applied one and a batch of samples change none, so nothing needs to wait for the
    /// device's next snapshot write before their journal records go.
    public var changesSnapshot = false

    /// Creates a result.
    /// - Parameters:
    ///   - outcome: the frame's outcome.
    ///   - messages: the messages to publish.
    ///   - frame: the decoded frame, if accepted.
    ///   - sequence: the sequence observation, if accepted and numbered.
    ///   - problem: why the payload was rejected, if it was.
    public init(
        outcome: FrameOutcome,
        messages: [OutboundMessage] = [],
        frame: DecodedFrame? = nil,
        sequence: SequenceObservation? = nil,
        problem: PayloadProblem? = nil
    ) {
        self.outcome = outcome
        self.messages = messages
        self.frame = frame
        self.sequence = sequence
        self.problem = problem
    }
}
