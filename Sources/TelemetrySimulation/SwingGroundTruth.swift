/// What the swing scenario generator did, from its own parameters (never from a detector).
public struct SwingGroundTruth: Sendable, Equatable {
    /// The kind of swing.
    public enum Kind: String, Sendable, Equatable {
        /// A full-speed swing that hit the ball: published with `contact = true`.
        case contact
        /// A full-speed swing that missed: published with `contact = false`.
        case miss
        /// A slow practice swing below the thresholds: publishes nothing.
        case practice
    }

    /// The kind of swing.
    public var kind: Kind
    /// The onset of the forward rotation (the rate about the vertical leaves zero), seconds since boot.
    public var startTimestamp: Double
    /// The ball contact (the impact's ring-down starts), seconds since boot; `nil` unless `contact`.
    public var impactTimestamp: Double?
    /// The peak rotation rate about the vertical, rad/s (reached at the contact instant).
    public var peakRotationRate: Double
    /// The rotation about the vertical from the onset to the contact instant (or to where the
    /// swing would have met the ball), rad.
    public var angleToContact: Double
    /// +1 when the swing turns clockwise seen from above (`ω·ĝ > 0`), −1 counter-clockwise.
    public var direction: Double
    /// Whether a batch boundary of either stream falls between the start and the contact instant.
    public var crossesBatchBoundary: Bool

    /// Creates a ground-truth record.
    public init(
        kind: Kind, startTimestamp: Double, impactTimestamp: Double?, peakRotationRate: Double, angleToContact: Double, direction: Double,
        crossesBatchBoundary: Bool
    ) {
        self.kind = kind
        self.startTimestamp = startTimestamp
        self.impactTimestamp = impactTimestamp
        self.peakRotationRate = peakRotationRate
        self.angleToContact = angleToContact
        self.direction = direction
        self.crossesBatchBoundary = crossesBatchBoundary
    }

    /// Impact − start, s; `nil` unless `contact`.
    public var timeToContact: Double? { impactTimestamp.map { $0 - startTimestamp } }

    /// Whether the gateway should publish this swing (contacts and misses, not practice swings).
    public var shouldPublish: Bool { kind != .practice }
}
