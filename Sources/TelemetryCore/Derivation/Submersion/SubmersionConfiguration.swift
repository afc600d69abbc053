/// Settings of the water submersion derivations (configuration keys `derivation.submersion.*`):
/// depth states, dive summaries, water temperature, the ascent-rate warning and the safety-stop
/// hint. Rules and examples: `docs/submersion.md`.
public struct SubmersionConfiguration: Sendable, Equatable, ConfigurationChecking, Codable {
    /// How far (m) the depth must cross back over a band boundary before the state changes to the
    /// shallower band, so that noise at a boundary does not flap. Deeper changes happen at the
    /// contract's thresholds exactly. Default 0.05 m.
    public var hysteresis = 0.05
    /// Water density ρ (kg/m³) for depth = (pressure − surfacePressure) / (ρ·g) when a measurement
    /// carries pressure but no depth. Default 1025 (sea water); fresh water is about 997.
    public var waterDensity = 1025.0
    /// Seconds (gateway clock) without any submersion frame after which an open dive ends: its
    /// summary is published with `endReason` `silence` and the depth state becomes `unknown`.
    /// Default 600 s, the time after which Core Motion ends an app's underwater session.
    public var diveEndSilence = 600.0
    /// Seconds measurements must say the diver is at the surface (depth, given or from pressure,
    /// below ``surfaceDepth``, or neither depth nor pressure with the watch's own state
    /// `notSubmerged`) before an open dive ends without its `notSubmerged` event (a lost event
    /// would otherwise hold the dive open for ``diveEndSilence``). Measured on the
    /// measurements' dates, or — when the last one said the surface and then they stopped (Core
    /// Motion slows or stops them at the surface) — as that long without frames on the gateway's
    /// clock. Default 60 s.
    public var surfaceTimeout = 60.0
    /// Depth (m) below which a measurement counts as at the surface. Default 0.3 m: Core Motion
    /// needs about 1 ft of water to report submersion.
    public var surfaceDepth = 0.3
    /// The ascent rate (m/min) above which an ascent-rate warning is raised. Default 10 m/min.
    public var ascentRateLimit = 10.0
    /// The window (s) the ascent rate is measured over. Default 3 s.
    public var ascentRateWindow = 3.0
    /// A dive deeper than this (m) should end with a safety stop; surfacing without one publishes
    /// a safety-stop hint. Default 10 m.
    public var safetyStopRequiredBeyond = 10.0
    /// The centre of the safety-stop band, m. Default 4.5 m.
    public var safetyStopDepth = 4.5
    /// Half the width of the safety-stop band, m: with the defaults the stop counts between 3 m
    /// and 6 m. Default 1.5 m.
    public var safetyStopTolerance = 1.5
    /// How long (s) the diver must stay in the band, without leaving it, for the stop to count.
    /// Default 180 s.
    public var safetyStopDuration = 180.0
    /// A temperature reading is `converged` once the dive has had a reading whose uncertainty is
    /// below this bound, °C. Default 0.5 °C.
    public var temperatureConvergedBelow = 0.5

    /// Creates the defaults.
    public init() {}

    /// Says why these settings cannot be used, naming the key, or nil when they can.
    ///
    /// The gateway's configuration keys bound each value; this catches what only programmatic
    /// use can get wrong (non-finite or non-positive values).
    public var configurationIssue: ConfigurationProblem? {
        let positive: [(String, Double)] = [
            ("waterDensity", waterDensity), ("diveEndSilence", diveEndSilence), ("surfaceTimeout", surfaceTimeout), ("ascentRate.limit", ascentRateLimit),
            ("ascentRate.window", ascentRateWindow), ("safetyStop.duration", safetyStopDuration),
            ("temperature.convergedBelow", temperatureConvergedBelow),
        ]
        if let problem = Self.firstInvalid("derivation.submersion.", positive, must: "a positive number", { $0 > 0 }) { return problem }
        let nonNegative: [(String, Double)] = [
            ("hysteresis", hysteresis), ("surfaceDepth", surfaceDepth), ("safetyStop.requiredBeyond", safetyStopRequiredBeyond),
            ("safetyStop.depth", safetyStopDepth), ("safetyStop.tolerance", safetyStopTolerance),
        ]
        return Self.firstInvalid("derivation.submersion.", nonNegative, must: "a non-negative number") { $0 >= 0 }
    }

    /// The depth state machine's part of the settings.
    public var depthStateMachine: DepthStateMachine.Configuration {
        DepthStateMachine.Configuration(hysteresis: hysteresis, waterDensity: waterDensity)
    }

    /// The ascent-rate monitor's part of the settings.
    public var ascentRate: AscentRateMonitor.Configuration {
        AscentRateMonitor.Configuration(limit: ascentRateLimit, window: ascentRateWindow)
    }

    /// The safety-stop rule's part of the settings.
    public var safetyStop: SafetyStopRule.Configuration {
        SafetyStopRule.Configuration(
            requiredBeyond: safetyStopRequiredBeyond, depth: safetyStopDepth, tolerance: safetyStopTolerance, duration: safetyStopDuration)
    }
}
