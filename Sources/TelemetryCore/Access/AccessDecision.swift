/// What ``AccessControl/admit(_:from:update:receivedAt:)`` decided for one frame.
public struct AccessDecision: Sendable, Equatable {
    /// Whether the frame passes (with the device's maximum depth) or why not.
    public var verdict: AccessVerdict
    /// The availability snapshot to publish because the frame changed it, if it did.
    public var availability: AvailabilityChange?

    /// Creates a decision.
    /// - Parameters:
    ///   - verdict: the verdict.
    ///   - availability: the snapshot to publish, if any.
    public init(verdict: AccessVerdict, availability: AvailabilityChange? = nil) {
        self.verdict = verdict
        self.availability = availability
    }
}
