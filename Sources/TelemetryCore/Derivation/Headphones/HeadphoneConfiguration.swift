/// Settings of the headphone derivations (`derivation.headphones.*`); see `docs/headphones.md`
/// for the rules they tune.
public struct HeadphoneConfiguration: Sendable, Equatable, ConfigurationChecking, Codable {
    /// Longest silence of `headphone/motion`, in seconds of the gateway clock, before connected
    /// headphones are declared disconnected with reason `streamTimeout`. Default 2 s (about 50
    /// missed samples at 25 Hz).
    public var streamTimeout: Double = 2
    /// Seconds of sample time that motion must keep arriving while disconnected (or before any
    /// connection is known) before it counts as connected again (reason `streamResumed`).
    /// Debounces late samples: a batch that arrives after a disconnect does not flap the state.
    /// Default 0.5 s (13 samples at 25 Hz); 0 reconnects on the first sample.
    public var resumeSpan: Double = 0.5
    /// Most `headphone/pose` messages per second, counted in sample time: a pose is published
    /// only when at least `1 / poseRate` s passed since the last one. Default 10 Hz.
    public var poseRate: Double = 10
    /// How far the head must be pitched down (relative pitch below −angle), in degrees, for the
    /// posture rule. Default 20°.
    public var postureAngle: Double = 20
    /// How long, in seconds of sample time, the head must stay pitched down before `headDown`
    /// is published. Default 30 s.
    public var postureDuration: Double = 30
    /// Degrees the head must come back up past the posture angle before `upright` is published
    /// (recovery at pitch ≥ −(angle − hysteresis)). Default 5°.
    public var postureHysteresis: Double = 5
    /// Angular rate, rad/s, that a swing of a nod (about the lateral axis) or a shake (about the
    /// vertical) must reach. Default 1.0 rad/s.
    public var gestureRotationRate: Double = 1.0
    /// Alternating swings needed for a gesture (down-up-down is 3). Default 3.
    public var gestureSwings: Int = 3
    /// Longest time, in seconds of sample time, between the starts of consecutive swings of
    /// one gesture. Default 0.8 s.
    public var gestureSwingGap: Double = 0.8
    /// How many times larger the gesture axis's rate must be than the other axis's rate for a
    /// sample to count toward a swing (keeps diagonal movements out). Default 2.
    public var gestureDominance: Double = 2

    /// Creates the defaults.
    public init() {}

    /// Says what is wrong with the settings, naming the key, or nil when they are usable.
    public var configurationIssue: ConfigurationProblem? {
        func problem(_ key: String, _ message: String) -> ConfigurationProblem {
            ConfigurationProblem(key: "derivation.headphones." + key, message: message)
        }
        if !(streamTimeout > 0 && streamTimeout.isFinite) { return problem("streamTimeout", "must be a positive number of seconds, got \(streamTimeout)") }
        if !(resumeSpan >= 0 && resumeSpan.isFinite) { return problem("resumeSpan", "must be 0 or more seconds, got \(resumeSpan)") }
        if !(poseRate > 0 && poseRate.isFinite) { return problem("poseRate", "must be a positive rate in Hz, got \(poseRate)") }
        if !(postureAngle > 0 && postureAngle < 90) { return problem("posture.angle", "must be between 0 and 90 degrees, got \(postureAngle)") }
        if !(postureDuration >= 0 && postureDuration.isFinite) { return problem("posture.duration", "must be 0 or more seconds, got \(postureDuration)") }
        if !(postureHysteresis >= 0 && postureHysteresis < postureAngle) {
            return problem("posture.hysteresis", "must be below derivation.headphones.posture.angle (\(postureAngle)), got \(postureHysteresis)")
        }
        if !(gestureRotationRate > 0 && gestureRotationRate.isFinite) {
            return problem("gesture.rotationRate", "must be a positive rate in rad/s, got \(gestureRotationRate)")
        }
        if gestureSwings < 2 { return problem("gesture.swings", "must be 2 or more, got \(gestureSwings)") }
        if !(gestureSwingGap > 0 && gestureSwingGap.isFinite) { return problem("gesture.swingGap", "must be a positive number of seconds, got \(gestureSwingGap)") }
        if !(gestureDominance >= 1 && gestureDominance.isFinite) { return problem("gesture.dominance", "must be 1 or more, got \(gestureDominance)") }
        return nil
    }
}
