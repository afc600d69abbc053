/// The derivation state of one device: one value per derived feature, each a pure state
/// machine that ignores the frames it does not use.
///
/// Milestones add their deriver here as a stored property, one line in ``receive(_:context:)``
/// and, if it has timers, one line in ``tick(now:context:)``.
public struct DeviceDerivations: Sendable, Codable {
    /// The settings of every deriver.
    public let configuration: DerivationConfiguration
    /// Water submersion: depth states, dives, temperature, ascent rate, safety stop.
    public private(set) var submersion: SubmersionDeriver
    /// Headphones: connection state, bud hand-offs, head pose, posture, gestures (internal
    /// setter: the reset-pose command reaches ``HeadphoneDeriver/resetPose(at:retained:)`` through it).
    public internal(set) var headphones: HeadphoneDeriver
    /// Swings: time to contact and contact/miss from the batched streams, tennis strokes.
    public private(set) var swing: SwingDeriver
    /// Run segments and workout summaries from pedometer events, pedometer data and altitude.
    public private(set) var run: RunSegmentDeriver

    /// Creates the state of a device seen for the first time.
    public init(configuration: DerivationConfiguration) {
        self.configuration = configuration
        submersion = SubmersionDeriver(configuration: configuration.submersion)
        headphones = HeadphoneDeriver(configuration: configuration.headphones)
        swing = SwingDeriver(configuration: configuration.swing)
        run = RunSegmentDeriver(configuration: configuration.run)
    }

    /// Whether any deriver uses a frame of this kind. The engine creates a device's state only
    /// for such frames: `hello`, `authorization` and recorder chunks need none, so a storm of
    /// hellos from 100,000 devices costs no derivation state.
    public static func consumes(_ frame: DecodedFrame) -> Bool {
        switch frame {
        case .hello, .authorization, .recorderAccelerometer: false
        default: true
        }
    }

    /// Whether a tick can fire anything for this device: an open dive, a connected headphone
    /// (stream timeout) or an open run workout. A device without them is left out of ticks,
    /// which for it would return nothing and change nothing.
    public var hasTimers: Bool {
        submersion.dive != nil || headphones.connection.state == .connected || run.hasOpenWorkout
    }

    /// Feeds one accepted frame to every deriver.
    /// - Returns: the events to publish, in the order derived.
    public mutating func receive(_ frame: DecodedFrame, context: DerivationContext) -> [OutboundMessage] {
        var messages: [OutboundMessage] = []
        messages += submersion.receive(frame, context: context)
        messages += headphones.receive(frame, context: context)
        messages += swing.receive(frame, context: context)
        messages += run.receive(frame, context: context)
        return messages
    }

    /// Finishes the stopped workout session (its end grace is over).
    /// - Parameter context: the device's context.
    /// - Returns: the events to publish.
    public mutating func finishSession(context: DerivationContext) -> [OutboundMessage] {
        swing.finishSession(context: context)
    }

    /// Lets time-based rules fire (silence timeouts, summaries after a quiet period).
    /// - Parameters:
    ///   - now: the gateway's current time, Unix epoch seconds.
    ///   - context: the device's context (`receivedAt` is `now`).
    /// - Returns: the events to publish.
    public mutating func tick(now: Double, context: DerivationContext) -> [OutboundMessage] {
        var messages: [OutboundMessage] = []
        messages += submersion.tick(now: now, context: context)
        messages += headphones.tick(now: now, context: context)
        messages += run.tick(now: now, context: context)
        return messages
    }
}
