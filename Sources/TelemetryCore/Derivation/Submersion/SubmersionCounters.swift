/// What a device's submersion deriver dropped or ignored, cumulative (for diagnostics and tests;
/// each dive summary also reports the stale and duplicate inputs of its dive).
public struct SubmersionCounters: Sendable, Equatable, Codable {
    /// Inputs dated before what was already processed (out of order), dropped.
    public var stale = 0
    /// Inputs dated exactly as the last input of their stream (redeliveries), dropped.
    public var duplicate = 0
    /// In-order inputs that could not affect the state: `unknown` states, measurement states that
    /// contradict the events, temperature readings while not submerged.
    public var ignored = 0
    /// Submersion frames of a device without a maximum depth in its context (no submersion
    /// entitlement resolved), not derived from.
    public var withoutMaximumDepth = 0

    /// Creates zero counters.
    public init() {}
}
