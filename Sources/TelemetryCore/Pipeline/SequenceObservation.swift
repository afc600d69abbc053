/// What one frame's `sequence` says about its stream, relative to the frames before it from the
/// same device (see ``SequenceTracker``).
public enum SequenceObservation: Sendable, Equatable {
    /// The first number seen for this device and stream (or since it was forgotten or restarted).
    case first
    /// Exactly one more than the highest number seen: in order, nothing missing.
    case next
    /// Ahead of the highest number seen by more than one: `missing` numbers were skipped.
    case gap(missing: UInt64)
    /// A number already seen (equal to the highest, or a recent one seen again).
    case duplicate
    /// Lower than the highest number seen and not seen before: a late frame. It is still processed.
    case reordered
    /// Far below the highest number seen (more than ``SequenceTracker/reorderWindow``): taken as the
    /// sender numbering anew, e.g. after an app restart; tracking starts over from this number.
    case restarted
    /// Not tracked: the tracker holds its maximum number of (device, stream) pairs.
    case untracked
}
