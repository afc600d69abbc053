/// Forehand or backhand, or unknown while the watch's wrist is not known.
public enum TennisStrokeKind: String, Sendable, Equatable, CaseIterable {
    /// Racket side of the body.
    case forehand
    /// Across the body.
    case backhand
    /// A stroke of a watch whose `hello` does not say its `wristLocation`: the rotation's
    /// direction is known, which side of the body it is on is not.
    case unknown
}

/// The sense of a stroke's rotation about gravity, seen from above.
public enum TennisStrokeRotation: String, Sendable, Equatable, CaseIterable {
    /// Clockwise: a forehand on the left wrist, a backhand on the right.
    case clockwise
    /// Counter-clockwise: a forehand on the right wrist, a backhand on the left.
    case counterclockwise

    /// The stroke this rotation is on a wrist; ``TennisStrokeKind/unknown`` without one.
    /// - Parameter wrist: the wrist the watch is worn on, or nil when not known.
    /// - Returns: the stroke kind.
    public func kind(on wrist: WristLocation?) -> TennisStrokeKind {
        guard let wrist else { return .unknown }
        return (self == .clockwise) == (wrist == .left) ? .forehand : .backhand
    }
}

/// A counted tennis stroke: what `gateway/{id}/tennis/stroke` publishes.
public struct TennisStroke: Sendable, Equatable {
    /// Forehand, backhand, or unknown (wrist not known).
    public var kind: TennisStrokeKind
    /// The rotation's sense about gravity (kept whatever the wrist).
    public var rotation: TennisStrokeRotation
    /// The timestamp of the motion sample that completed the detection, seconds since boot.
    public var timestamp: Double
    /// Forehands counted in the workout so far, this one included.
    public var forehandCount: Int
    /// Backhands counted in the workout so far, this one included.
    public var backhandCount: Int
    /// Strokes of unknown side counted in the workout so far, this one included.
    public var unknownCount: Int
    /// The rotation about gravity accumulated over the window, rad (signed: + clockwise from above).
    public var accumulatedRotation: Double
    /// The window's peak rotation rate about gravity in the stroke's direction, rad/s (signed).
    public var peakRate: Double

    /// Creates a stroke.
    public init(
        kind: TennisStrokeKind, rotation: TennisStrokeRotation, timestamp: Double, forehandCount: Int, backhandCount: Int, unknownCount: Int = 0,
        accumulatedRotation: Double, peakRate: Double
    ) {
        self.kind = kind
        self.rotation = rotation
        self.unknownCount = unknownCount
        self.timestamp = timestamp
        self.forehandCount = forehandCount
        self.backhandCount = backhandCount
        self.accumulatedRotation = accumulatedRotation
        self.peakRate = peakRate
    }
}
