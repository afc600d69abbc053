/// A measured swing: what `gateway/{id}/swing` publishes.
public struct SwingEvent: Sendable, Equatable {
    /// The onset of the forward rotation, seconds since boot.
    public var startTimestamp: Double
    /// The ball contact, seconds since boot; `nil` for a miss.
    public var impactTimestamp: Double?
    /// The largest rotation rate about gravity between start and impact (for a miss, of the
    /// whole forward rotation), rad/s.
    public var peakRotationRate: Double
    /// The rotation about gravity from the start to the impact (for a miss, to the peak rate,
    /// where a swing usually meets the ball), rad.
    public var rotationAngle: Double
    /// +1 clockwise seen from above (`ω·ĝ > 0`), −1 counter-clockwise.
    public var direction: Double

    /// Creates a swing.
    public init(startTimestamp: Double, impactTimestamp: Double?, peakRotationRate: Double, rotationAngle: Double, direction: Double) {
        self.startTimestamp = startTimestamp
        self.impactTimestamp = impactTimestamp
        self.peakRotationRate = peakRotationRate
        self.rotationAngle = rotationAngle
        self.direction = direction
    }

    /// Whether the swing hit the ball.
    public var contact: Bool { impactTimestamp != nil }

    /// Impact − start, s; `nil` for a miss.
    public var timeToContact: Double? { impactTimestamp.map { $0 - startTimestamp } }
}
