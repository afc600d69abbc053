public import TelemetryCore

// The wire contract's depth rule, written here a second time on purpose: scenario ground truth
// must not come from the gateway's own state machine (TelemetryCore's DepthStateMachine).
//
// Contract (docs/wire-contract.md, "Depth states"): with maximum depth M and depth d,
// submergedShallow 0 ≤ d < 1; submergedDeep 1 ≤ d < 0.9·M; approachingMaxDepth 0.9·M ≤ d ≤ M;
// pastMaxDepth M < d ≤ 1.1·M; sensorDepthError d > 1.1·M. A change toward a shallower state
// needs the depth to cross back by the hysteresis h. Gateway rules it relies on
// (docs/submersion.md): events enter (as submergedShallow) and leave the water; a measurement
// without depth or pressure adopts its own submerged state; a measurement saying notSubmerged
// while submerged is ignored.

extension DiveScenario {
    /// The five submerged bands, shallow to deep.
    private static let bandOrder: [DepthState] = [.submergedShallow, .submergedDeep, .approachingMaxDepth, .pastMaxDepth, .sensorDepthError]

    /// The band index (0 shallow … 4 sensor error) of depth `depth` with every boundary moved
    /// up by `-shift` (shift > 0 lowers the boundaries: the shallower-change thresholds).
    private static func bandIndex(_ depth: Double, maximumDepth: Double, shift: Double) -> Int {
        // (boundary, whether the deeper band includes the boundary itself)
        let boundaries: [(Double, Bool)] = [
            (1 - shift, true), (0.9 * maximumDepth - shift, true), (maximumDepth - shift, false), (1.1 * maximumDepth - shift, false),
        ]
        var index = 0
        for (position, (boundary, deeperIncludesIt)) in boundaries.enumerated() {
            let beyond = deeperIncludesIt ? depth >= boundary : depth > boundary
            if beyond { index = position + 1 }
        }
        return index
    }

    /// The device-side state Core Motion would report: the contract's bands, no hysteresis.
    /// - Parameters:
    ///   - depth: m.
    ///   - maximumDepth: M, m.
    static func deviceState(forDepth depth: Double, maximumDepth: Double) -> DepthState {
        bandOrder[bandIndex(depth, maximumDepth: maximumDepth, shift: 0)]
    }

    /// The depth states the gateway must publish for this scenario, in order, starting with the
    /// first known state (the gateway starts in `unknown`, which is never published itself).
    /// - Parameters:
    ///   - hysteresis: h, m (the gateway's default is 0.05).
    ///   - waterDensity: ρ the gateway uses for pressure-only measurements, kg/m³.
    /// - Returns: the sequence of states, one per change.
    public func expectedDepthStates(hysteresis: Double = 0.05, waterDensity density: Double = 1025) -> [DepthState] {
        Self.expectedDepthStates(of: observations().map(\.observation), maximumDepth: maximumDepth, hysteresis: hysteresis, waterDensity: density)
    }

    /// The depth states a gateway following the contract publishes for `observations`.
    /// - Parameters:
    ///   - observations: events and measurements in order (temperature readings are skipped).
    ///   - maximumDepth: M, m.
    ///   - hysteresis: h, m.
    ///   - waterDensity: ρ, kg/m³.
    /// - Returns: the sequence of states, one per change.
    public static func expectedDepthStates(
        of observations: [Observation], maximumDepth: Double, hysteresis: Double = 0.05, waterDensity density: Double = 1025
    ) -> [DepthState] {
        var current: DepthState = .unknown
        var published: [DepthState] = []
        func set(_ next: DepthState) {
            if next != current {
                published.append(next)
                current = next
            }
        }
        func isUnderwater(_ state: DepthState) -> Bool { bandOrder.contains(state) }
        for observation in observations {
            switch observation {
            case .temperature:
                continue
            case .event(let event):
                switch event.state {
                case .submerged: if !isUnderwater(current) { set(.submergedShallow) }
                case .notSubmerged: set(.notSubmerged)
                case .unknown: continue
                }
            case .measurement(let measurement):
                let own = measurement.submersionState
                var depth = measurement.depth
                if depth == nil, let pressure = measurement.pressure {
                    depth = (pressure - measurement.surfacePressure) * 1000 / (density * 9.80665)
                }
                if isUnderwater(current) {
                    if own == .notSubmerged { continue }
                    if let depth {
                        let now = bandOrder.firstIndex(of: current) ?? 0
                        let plain = bandIndex(depth, maximumDepth: maximumDepth, shift: 0)
                        if plain >= now {
                            set(bandOrder[plain])
                        } else {
                            // Rising: only as far as the boundaries lowered by h allow.
                            let lowered = bandIndex(depth, maximumDepth: maximumDepth, shift: hysteresis)
                            set(bandOrder[min(now, lowered)])
                        }
                    } else if isUnderwater(own) {
                        set(own)
                    }
                } else if current == .unknown {
                    if own == .notSubmerged {
                        set(.notSubmerged)
                    } else if isUnderwater(own) {
                        set(depth.map { bandOrder[bandIndex($0, maximumDepth: maximumDepth, shift: 0)] } ?? own)
                    }
                }
            }
        }
        return published
    }
}
