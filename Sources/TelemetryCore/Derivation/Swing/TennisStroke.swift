/// Forehand or backhand.
public enum TennisStrokeKind: String, Sendable, Equatable, CaseIterable {
    /// Racket side of the body.
    case forehand
    /// Across the body.
    case backhand
}

/// A counted tennis stroke: what `gateway/{id}/tennis/stroke` publishes.
public struct TennisStroke: Sendable, Equatable {
    /// Forehand or backhand.
    public var kind: TennisStrokeKind
    /// The timestamp of the motion sample that completed the detection, seconds since boot.
    public var timestamp: Double
    /// Forehands counted in the workout so far, this one included.
    public var forehandCount: Int
    /// Backhands counted in the workout so far, this one included.
    public var backhandCount: Int
    /// The rotation about gravity accumulated over the window, rad (signed: + clockwise from above).
    public var accumulatedRotation: Double
    /// The window's peak rotation rate about gravity in the stroke's direction, rad/s (signed).
    public var peakRate: Double

    /// Creates a stroke.
    public init(kind: TennisStrokeKind, timestamp: Double, forehandCount: Int, backhandCount: Int, accumulatedRotation: Double, peakRate: Double) {
        self.kind = kind
        self.timestamp = timestamp
        self.forehandCount = forehandCount
        self.backhandCount = backhandCount
        self.accumulatedRotation = accumulatedRotation
        self.peakRate = peakRate
    }
}
