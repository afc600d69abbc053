/// Cumulative sequence statistics of one stream, summed over devices; each field only grows, so
/// the gateway can export them as counters (`gateway.sequence.missing{stream}` and so on).
public struct SequenceCounters: Sendable, Equatable {
    /// Numbered frames observed, tracked or not.
    public var frames: UInt64 = 0
    /// Numbers skipped by gaps (a frame that arrives late afterwards is also counted in ``reordered``,
    /// so `missing − reordered` approximates what never arrived).
    public var missing: UInt64 = 0
    /// Frames whose number was already seen.
    public var duplicates: UInt64 = 0
    /// Late frames: lower than the highest number seen and not seen before.
    public var reordered: UInt64 = 0
    /// Numbering restarts (a number far below the highest seen).
    public var restarts: UInt64 = 0
    /// Frames not tracked because the tracker was full.
    public var untracked: UInt64 = 0

    /// Creates zeroed counters.
    public init() {}

    /// Adds one observation (saturating, so adversarial gaps cannot overflow).
    /// - Parameter observation: what a frame's sequence said.
    public mutating func record(_ observation: SequenceObservation) {
        frames = frames.addingSaturated(1)
        switch observation {
        case .first, .next: break
        case .gap(let skipped): missing = missing.addingSaturated(skipped)
        case .duplicate: duplicates = duplicates.addingSaturated(1)
        case .reordered: reordered = reordered.addingSaturated(1)
        case .restarted: restarts = restarts.addingSaturated(1)
        case .untracked: untracked = untracked.addingSaturated(1)
        }
    }
}

extension UInt64 {
    /// `self + other`, or `UInt64.max` when that overflows.
    fileprivate func addingSaturated(_ other: UInt64) -> UInt64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? .max : sum
    }
}
