/// Settings of every deriver; each milestone adds its own nested settings with documented
/// defaults (configuration keys under `derivation.*`).
public struct DerivationConfiguration: Sendable, Equatable, ConfigurationChecking, Codable {
    /// Water submersion: depth-state hysteresis, water density, dive-end silence, ascent rate,
    /// safety stop, temperature convergence (keys `derivation.submersion.*`; defaults in
    /// ``SubmersionConfiguration``).
    public var submersion = SubmersionConfiguration()
    /// Headphones: stream timeout and resumption, pose rate, posture and gesture thresholds
    /// (keys `derivation.headphones.*`; defaults in ``HeadphoneConfiguration``).
    public var headphones = HeadphoneConfiguration()
    /// Swings: time to contact, contact/miss from the batched streams, tennis strokes from
    /// `motion` (keys `derivation.swing.*`; defaults and their reasoning in ``SwingConfiguration``).
    public var swing = SwingConfiguration()
    /// Run segments and workout summaries from pedometer events, pedometer data and altitude
    /// (keys `derivation.run.*`; defaults and their reasoning in ``RunConfiguration``).
    public var run = RunConfiguration()
    /// Tremor: windows, coverage, voluntary-movement and displacement thresholds, band and grid
    /// of the analysis of `recorder/accelerometer` minutes (keys `derivation.tremor.*`; defaults
    /// and their reasoning in ``TremorConfiguration``).
    public var tremor = TremorConfiguration()
    /// Seconds of gateway time after a workout session paused or ended during which its
    /// `batched/*` frames are still admitted and derived; the session's pending swings are
    /// decided after it (key `session.endGrace`, ``WorkoutEndGrace``). Default 2 s: batches
    /// arrive about 1 s after their samples, one per second.
    public var sessionEndGrace: Double = 2

    /// Creates the defaults.
    public init() {}

    /// The first problem of any deriver's settings (each names its key), or nil; the gateway's
    /// loader reports it as a configuration error.
    public var configurationIssue: ConfigurationProblem? {
        if !(sessionEndGrace >= 0 && sessionEndGrace.isFinite) {
            return ConfigurationProblem(key: "session.endGrace", message: "must be a non-negative number of seconds, got \(sessionEndGrace)")
        }
        let derivers: [any ConfigurationChecking] = [submersion, headphones, swing, run, tremor]
        return derivers.lazy.compactMap(\.configurationIssue).first
    }
}
