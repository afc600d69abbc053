/// The wire contract's depth bands for one entitlement maximum depth M.
///
/// | state | depth d (m) |
/// |---|---|
/// | ``DepthState/submergedShallow`` | d < 1 |
/// | ``DepthState/submergedDeep`` | 1 ≤ d < 0.9·M |
/// | ``DepthState/approachingMaxDepth`` | 0.9·M ≤ d ≤ M |
/// | ``DepthState/pastMaxDepth`` | M < d ≤ 1.1·M |
/// | ``DepthState/sensorDepthError`` | d > 1.1·M |
///
/// With hysteresis h, a change to a *shallower* band uses thresholds lowered by h (the depth must
/// cross back by h): leaving deep for shallow needs d < 1 − h, approaching for deep d < 0.9·M − h,
/// past for approaching d ≤ M − h, sensor error for past d ≤ 1.1·M − h. Changes to a deeper band
/// use the thresholds above exactly.
public struct DepthBands: Sendable, Equatable, Codable {
    /// The entitlement's maximum depth M, m (6 shallow, 40 full).
    public var maximumDepth: Double

    /// Creates the bands for a maximum depth.
    /// - Parameter maximumDepth: M in m.
    public init(maximumDepth: Double) {
        self.maximumDepth = maximumDepth
    }

    /// Where ``DepthState/submergedDeep`` starts: 1 m.
    public var deepFrom: Double { 1 }
    /// Where ``DepthState/approachingMaxDepth`` starts: 0.9·M.
    public var approachingFrom: Double { 0.9 * maximumDepth }
    /// Beyond this depth the state is ``DepthState/pastMaxDepth``: M.
    public var pastBeyond: Double { maximumDepth }
    /// Beyond this depth the state is ``DepthState/sensorDepthError``: 1.1·M.
    public var sensorErrorBeyond: Double { 1.1 * maximumDepth }

    /// The band of a depth by the contract's rule, without hysteresis.
    /// - Parameter depth: m, positive under water.
    /// - Returns: one of the five submerged states.
    public func state(forDepth depth: Double) -> DepthState {
        state(forDepth: depth, loweredBy: 0)
    }

    /// The band of a depth given the current band, with hysteresis on shallower changes.
    /// - Parameters:
    ///   - depth: m, positive under water.
    ///   - current: the current state; when it is not a submerged band (``DepthState/unknown``,
    ///     ``DepthState/notSubmerged``) the plain rule applies.
    ///   - hysteresis: m, ≥ 0.
    /// - Returns: one of the five submerged states.
    public func state(forDepth depth: Double, from current: DepthState, hysteresis: Double) -> DepthState {
        let plain = state(forDepth: depth)
        guard current.isSubmergedBand, plain.rawValue < current.rawValue else { return plain }
        // Shallower than the current band: only as far as the lowered thresholds allow (never
        // deeper than the current band, never shallower than the plain rule).
        let lowered = state(forDepth: depth, loweredBy: hysteresis)
        return lowered.rawValue < current.rawValue ? lowered : current
    }

    private func state(forDepth depth: Double, loweredBy offset: Double) -> DepthState {
        if depth < deepFrom - offset { return .submergedShallow }
        if depth < approachingFrom - offset { return .submergedDeep }
        if depth <= pastBeyond - offset { return .approachingMaxDepth }
        if depth <= sensorErrorBeyond - offset { return .pastMaxDepth }
        return .sensorDepthError
    }
}

extension DepthState {
    /// Whether the state is one of the five submerged bands (shallow … sensor error).
    public var isSubmergedBand: Bool { rawValue >= DepthState.submergedShallow.rawValue }
}
