/// Whether and how often rejected frames are republished as dead letters
/// (`deadLetter.enabled`, `deadLetter.maxPerSecond`).
public struct DeadLetterPolicy: Sendable, Equatable {
    /// The most dead letters per device (or for the gateway-wide topic) per second; more are
    /// dropped and counted, so a device sending garbage cannot double the gateway's output.
    public var maxPerSecond: Int

    /// Creates a policy.
    /// - Parameter maxPerSecond: dead letters per device and second; at least 1.
    public init(maxPerSecond: Int = 10) {
        self.maxPerSecond = max(1, maxPerSecond)
    }
}
