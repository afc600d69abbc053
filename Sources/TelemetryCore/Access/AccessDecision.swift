/// What ``AccessControl/admit(_:from:update:receivedAt:)`` decided for one frame.
public struct AccessDecision: Sendable, Equatable {
    /// Whether the frame passes (with the device's maximum depth) or why not.
    public var verdict: AccessVerdict
    /// The availability snapshot to publish because the frame changed it, if it did.
    public var availability: AvailabilityChange?
    /// Whether the derivers must finish the device's workout session after deriving this frame:
    /// a batched frame admitted after the end whose session finish already ran
    /// (``WorkoutEndGrace``).
    public var finishesSession = false

    /// Creates a decision.
    /// - Parameters:
    ///   - verdict: the verdict.
    ///   - availability: the snapshot to publish, if any.
    ///   - finishesSession: whether the session must be finished after deriving the frame.
    public init(verdict: AccessVerdict, availability: AvailabilityChange? = nil, finishesSession: Bool = false) {
        self.verdict = verdict
        self.availability = availability
        self.finishesSession = finishesSession
    }
}
