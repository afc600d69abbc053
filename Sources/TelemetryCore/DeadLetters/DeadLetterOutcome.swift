/// What became of a rejected frame's dead letter (only when dead letters are enabled).
public enum DeadLetterOutcome: Sendable, Equatable {
    /// The dead letter is among the frame's messages.
    case published
    /// The device exceeded `deadLetter.maxPerSecond`; nothing was republished (counted).
    case dropped
}
