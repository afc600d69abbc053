/// The derivation state of one device: one value per derived feature, each a pure state
/// machine that ignores the frames it does not use.
///
/// Milestones add their deriver here as a stored property, one line in ``receive(_:context:)``
/// and, if it has timers, one line in ``tick(now:context:)``.
public struct DeviceDerivations: Sendable {
    /// The settings of every deriver.
    public let configuration: DerivationConfiguration

    /// Creates the state of a device seen for the first time.
    public init(configuration: DerivationConfiguration) {
        self.configuration = configuration
    }

    /// Feeds one accepted frame to every deriver.
    /// - Returns: the events to publish, in the order derived.
    public mutating func receive(_ frame: DecodedFrame, context: DerivationContext) -> [OutboundMessage] {
        let messages: [OutboundMessage] = []
        return messages
    }

    /// Lets time-based rules fire (silence timeouts, summaries after a quiet period).
    /// - Parameters:
    ///   - now: the gateway's current time, Unix epoch seconds.
    ///   - context: the device's context (`receivedAt` is `now`).
    /// - Returns: the events to publish.
    public mutating func tick(now: Double, context: DerivationContext) -> [OutboundMessage] {
        let messages: [OutboundMessage] = []
        return messages
    }
}
