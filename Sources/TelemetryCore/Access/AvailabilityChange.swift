/// A changed `gateway/{id}/availability` snapshot to publish.
public struct AvailabilityChange: Sendable, Equatable {
    /// The new snapshot.
    public var snapshot: AvailabilitySnapshot
    /// When it took effect, Unix epoch seconds: the `authorization` frame's date, the `hello`'s
    /// arrival time, or the time the policy was replaced.
    public var date: Double

    /// Creates a change.
    /// - Parameters:
    ///   - snapshot: the new snapshot.
    ///   - date: when it took effect.
    public init(snapshot: AvailabilitySnapshot, date: Double) {
        self.snapshot = snapshot
        self.date = date
    }

    /// The retained message to publish.
    /// - Parameter scheme: the topic layout.
    /// - Returns: the `gateway/{id}/availability` message.
    public func message(scheme: TopicScheme) -> OutboundMessage {
        snapshot.message(scheme: scheme, date: date)
    }
}
