/// Counts of what the derivations did or could not do, for metrics: cumulative in a
/// ``DerivationEngine`` and, per frame, in ``FrameResult/derived``.
public struct DerivationTally: Sendable, Equatable {
    /// Tennis strokes published as forehands.
    public var forehandStrokes = 0
    /// Tennis strokes published as backhands.
    public var backhandStrokes = 0
    /// Tennis strokes published as `unknown`: the watch's `hello` does not say its wrist.
    public var unknownStrokes = 0
    /// Accepted frames not derived from because the engine tracks its maximum of devices.
    public var untrackedFrames = 0
    /// Swing candidates (impacts, rotation segments) dropped because their pending lists were
    /// full (``SwingDetector/droppedCandidates``).
    public var droppedSwingCandidates = 0

    /// Creates a tally of zero.
    public init() {}

    /// Whether everything is zero (the common case: no metric to touch).
    public var isZero: Bool { self == DerivationTally() }

    /// Counts a published stroke.
    mutating func count(_ kind: TennisStrokeKind) {
        switch kind {
        case .forehand: forehandStrokes += 1
        case .backhand: backhandStrokes += 1
        case .unknown: unknownStrokes += 1
        }
    }

    /// The counts added since `earlier`, a past value of the same cumulative tally.
    public func since(_ earlier: DerivationTally) -> DerivationTally {
        var delta = DerivationTally()
        delta.forehandStrokes = forehandStrokes - earlier.forehandStrokes
        delta.backhandStrokes = backhandStrokes - earlier.backhandStrokes
        delta.unknownStrokes = unknownStrokes - earlier.unknownStrokes
        delta.untrackedFrames = untrackedFrames - earlier.untrackedFrames
        delta.droppedSwingCandidates = droppedSwingCandidates - earlier.droppedSwingCandidates
        return delta
    }

    /// Adds `other`'s counts.
    mutating func add(_ other: DerivationTally) {
        forehandStrokes += other.forehandStrokes
        backhandStrokes += other.backhandStrokes
        unknownStrokes += other.unknownStrokes
        untrackedFrames += other.untrackedFrames
        droppedSwingCandidates += other.droppedSwingCandidates
    }
}
