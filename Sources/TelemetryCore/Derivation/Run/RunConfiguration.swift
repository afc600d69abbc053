/// Settings of the run segments (`gateway/{id}/pedometer/segment`) and workout summaries
/// (`gateway/{id}/pedometer/workout`); gateway keys `derivation.run.*`. The rules they tune and
/// the accuracy the defaults reach on the simulator's runs: `docs/run-segments.md`.
public struct RunConfiguration: Sendable, Equatable, ConfigurationChecking, Codable {
    /// A segment whose elevation gain reaches this height, m, is flagged `hill: true`. Default
    /// 10 m: about three storeys, more than any urban block's camber or a bridge ramp's
    /// noise, less than the smallest climb a runner calls a hill.
    public var hillHeight: Double = 10
    /// A climb or descent counts toward elevation gain only once the (smoothed) altitude has
    /// moved this far, m, against the current direction. Barometric noise (≈ 0.1–0.3 m per
    /// sample) then never accumulates on flat ground, while every real climb is counted in full
    /// from its low point to its high point. Default 1 m.
    public var elevationDeadband: Double = 1
    /// Width of the centred moving average applied to the altimeter samples before the dead
    /// band, s (0: none). Averaging 5 samples at ≈ 1 Hz cuts the noise by √5, so noise peaks
    /// stay well inside the dead band; a slope of 0.2 m/s loses ≈ 0.25 m at each turning
    /// point. Default 5 s.
    public var altitudeSmoothing: Double = 5
    /// Longest wait, s of gateway time, for the data that covers a segment's end (a
    /// `pedometer/data` update and an altimeter sample at or after the pause) before the
    /// segment is published with what has arrived. Default 10 s: four pedometer updates.
    public var finalizeTimeout: Double = 10
    /// Without a HealthKit workout, pedometer events alone bound segments: a `resume` opens an
    /// implicit activity, which closes once it has been paused this long, s of gateway time,
    /// with no further event. An activity whose last event is a resume stays open (a runner who
    /// never stops sends no events). Default 300 s: a five-minute stop ends the run.
    public var idleTimeout: Double = 300
    /// Most altimeter samples kept for the current workout; older ones are dropped (counted).
    /// Default 20,000: 5.5 h at 1 Hz, about 320 KB at most.
    public var maxAltitudeSamples: Int = 20_000
    /// Most cumulative `pedometer/data` updates kept; older ones are dropped (counted).
    /// Default 20,000: 14 h at one update per 2.5 s, about 480 KB at most.
    public var maxPedometerUpdates: Int = 20_000
    /// Most pause/resume events waiting in a workout (those after the last published segment);
    /// further ones are dropped (counted). Default 1,000.
    public var maxPendingEvents: Int = 1_000
    /// Workouts of these HealthKit activity types (`workout` frames' `activityType`) have run
    /// segments; other workouts (tennis, diving) are ignored. Empty: every workout. Default
    /// `running`, `walking`, `hiking`.
    public var activityTypes: Set<String> = ["running", "walking", "hiking"]

    /// Creates the defaults.
    public init() {}

    /// Says why these settings cannot be used, naming the key, or nil when they can.
    ///
    /// The gateway's configuration keys bound each value; this catches what only programmatic
    /// use can get wrong.
    public var configurationIssue: ConfigurationProblem? {
        let nonNegative: [(String, Double)] = [
            ("hillHeight", hillHeight), ("elevationDeadband", elevationDeadband), ("altitudeSmoothing", altitudeSmoothing),
            ("finalizeTimeout", finalizeTimeout), ("idleTimeout", idleTimeout),
        ]
        if let problem = Self.firstInvalid("derivation.run.", nonNegative, must: "a non-negative number", { $0 >= 0 }) { return problem }
        let counts: [(String, Int)] = [
            ("maxAltitudeSamples", maxAltitudeSamples), ("maxPedometerUpdates", maxPedometerUpdates), ("maxPendingEvents", maxPendingEvents),
        ]
        for (name, value) in counts where value < 2 {
            return ConfigurationProblem(key: "derivation.run.\(name)", message: "must be 2 or more, got \(value)")
        }
        return nil
    }

    /// Whether a workout of `activityType` has run segments.
    /// - Parameter activityType: the HealthKit activity type name.
    /// - Returns: true when ``activityTypes`` is empty or contains it.
    public func tracks(activityType: String) -> Bool {
        activityTypes.isEmpty || activityTypes.contains(activityType)
    }
}
