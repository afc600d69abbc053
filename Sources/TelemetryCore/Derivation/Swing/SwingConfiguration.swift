/// Settings of the swing metrics (`gateway/{id}/swing`) and the tennis stroke counter
/// (`gateway/{id}/tennis/stroke`); gateway keys `derivation.swing.*`.
///
/// Core Motion publishes no thresholds for the WWDC23 "time to contact" example, so the
/// defaults below are the project's, each with its reasoning; `docs/swing-metrics.md` explains
/// them and the accuracy they reach on the simulator's ground truth. The tennis defaults are
/// Apple's SwingWatch sample's (WWDC16).
public struct SwingConfiguration: Sendable, Equatable, ConfigurationChecking, Codable {
    // MARK: Batches

    /// Nominal rate of `batched/accelerometer`, Hz. CMBatchedSensorManager reports 800 Hz
    /// (WWDC23). Designs the high-pass filter and sizes the window.
    public var accelerometerRate: Double = 800
    /// Nominal rate of `batched/device-motion`, Hz. CMBatchedSensorManager reports 200 Hz
    /// (WWDC23). Sizes the window and converts ``startConsistency`` to samples.
    public var deviceMotionRate: Double = 200
    /// Seconds of device motion kept per device. Both streams come as one batch a second, in
    /// either order: a swing is only measured when both streams cover it, so the rotation rate
    /// must be kept for as long as the accelerometer may lag (one batch, 1 s) plus the
    /// follow-through a miss is judged over (up to ``maxRotationDuration``, 1.5 s), the longest
    /// swing before its anchor (``maxSwingDuration``, 0.6 s) and the search margins (≈ 0.1 s):
    /// 3.2 s. Default 4 s (800 samples, 6.4 KB per device). The accelerometer needs no such
    /// window: its impacts are found as its samples arrive and only its gaps are remembered.
    /// A device-motion stream lagging more than this loses the swings of the uncovered time.
    public var alignmentWindow: Double = 4
    /// A jump between consecutive timestamps above this many nominal sample periods is a gap
    /// (a lost batch): the high-pass filter restarts after it and no swing is measured across it.
    public var gapTolerance: Double = 3

    // MARK: Impact

    /// −3 dB frequency of the second-order Butterworth high-pass on the accelerometer z axis, Hz.
    /// Arm and bat motion lives below ≈ 10 Hz (attenuated ≥ 9×, gravity and the centripetal
    /// load completely); a bat–ball or racket–ball contact rings the wrist at ≈ 80–300 Hz,
    /// which passes almost unchanged.
    public var highPassCutoff: Double = 30
    /// Smallest high-passed |z| that is an impact, g. Walking and arm motion stay below
    /// ≈ 0.3 g after the filter and sensor noise is ≈ 0.01 g; ball contacts measure several g.
    public var impactThreshold: Double = 1.5
    /// The impact's peak is the largest high-passed |z| within this many seconds of the first
    /// sample above ``impactThreshold`` (a contact rings for a few ms).
    public var impactPeakWindow: Double = 0.02
    /// How far before the peak the contact instant is searched in the original samples, s.
    /// The high-pass filter delays and smears the peak by a few samples (≈ 2–5 ms at 30 Hz);
    /// 10 ms covers it.
    public var impactOnsetLookback: Double = 0.01
    /// The contact instant is the first original sample, within the look-back, whose change
    /// from the previous sample reaches this fraction of the largest change there: the first
    /// sample that shows the shock, not the filter's delayed peak.
    public var impactOnsetFraction: Double = 0.2
    /// After an impact, further peaks within this many seconds belong to its ring-down, s.
    public var impactRefractory: Double = 0.15

    // MARK: Swing

    /// Rotation rate about gravity (|ω·ĝ|) above which the wrist is swinging, rad/s. A batter at
    /// the stance and the load phase stay well below (≲ 0.5 rad/s); a swing crosses it within a
    /// few ms of its onset.
    public var startRate: Double = 1.5
    /// Scanning back from the impact, the swing starts where the rate has stayed below
    /// ``startRate`` for this long, s (3 samples at 200 Hz), so one noisy sample inside the
    /// swing does not cut it short.
    public var startConsistency: Double = 0.015
    /// The start is moved back from the threshold crossing to the onset of the forward rotation
    /// (the rising edge extrapolated linearly to zero rate) by at most this many seconds; 0
    /// reports the crossing itself. A swing reaches ``startRate`` 5–20 ms after its onset, which
    /// is the accuracy that matters for a 120–250 ms time to contact.
    public var maxOnsetExtrapolation: Double = 0.03
    /// Smallest peak |ω·ĝ| of a swing, rad/s. Bat swings turn the wrist at ≈ 10–35 rad/s;
    /// walking stays below ≈ 2, waving below ≈ 6, slow practice swings below ≈ 6.
    public var minPeakRate: Double = 8
    /// Smallest rotation about gravity from start to impact (for a miss, to its peak rate), rad
    /// (≈ 57°). A swing to contact turns the wrist by ≈ 90–160°; a wave half-cycle by less.
    public var minRotationAngle: Double = 1.0
    /// Shortest time to contact, s: faster "swings" are knocks, not swings.
    public var minSwingDuration: Double = 0.05
    /// Longest time to contact (or onset-to-peak of a miss), s. Game swings take 120–250 ms;
    /// a rotation that has exceeded ``startRate`` for longer is not one swing.
    public var maxSwingDuration: Double = 0.6
    /// An impact up to this many seconds after the rotation dropped below ``startRate`` still
    /// belongs to the swing (and makes it a contact, not a miss).
    public var impactSlack: Double = 0.05
    /// A rotation above ``startRate`` lasting longer than this is not a swing (spinning,
    /// turning around), s; it can still end in a contact swing if an impact marks it.
    public var maxRotationDuration: Double = 1.5

    // MARK: Tennis

    /// Settings of the tennis stroke counter on the per-sample `motion` stream.
    public var tennis = TennisConfiguration()

    /// Creates the defaults.
    public init() {}
}

/// Settings of the tennis stroke counter: Apple's SwingWatch rule (WWDC16 session 713),
/// generalised from 50 Hz to any sample rate by measuring the window in seconds and weighting
/// each sample by its own interval.
public struct TennisConfiguration: Sendable, Equatable, Codable {
    /// The sliding window, s (SwingWatch: 50 samples at 50 Hz).
    public var window: Double = 1
    /// Smallest accumulated rotation about gravity over the window, rad (SwingWatch `yawThreshold`).
    public var yawThreshold: Double = 1.95
    /// Smallest peak rotation rate about gravity in the window, rad/s (SwingWatch `rateThreshold`).
    public var rateThreshold: Double = 5.5
    /// After a stroke, counting re-arms when the mean rate of the newest half window falls
    /// below this fraction of ``rateThreshold`` (SwingWatch: 5 %, 0.275 rad/s), so the return
    /// swing is not counted.
    public var resetFraction: Double = 0.05
    /// A larger step between timestamps is a gap, s: the window restarts (no rotation is
    /// integrated across lost data).
    public var maxSampleGap: Double = 0.1
    /// Highest sample rate the window is sized for, Hz (the contract's `motion` is ≤ 100 Hz);
    /// above it the window holds fewer seconds.
    public var maxSampleRate: Double = 200
    /// Strokes are counted only while a workout of one of these HealthKit activity types is
    /// running (SwingWatch runs in a `.tennis` workout); per-sample motion of other activities
    /// (walking, baseball) is ignored. Empty: count whenever motion arrives.
    public var activityTypes: Set<String> = ["tennis"]

    /// Creates the defaults.
    public init() {}
}

extension SwingConfiguration {
    /// Says why these settings cannot be used, naming the key, or nil when they can.
    public var configurationIssue: ConfigurationProblem? {
        let positive: [(String, Double)] = [
            ("alignmentWindow", alignmentWindow), ("highPassCutoff", highPassCutoff), ("impactThreshold", impactThreshold),
            ("startRate", startRate), ("startConsistency", startConsistency), ("minPeakRate", minPeakRate),
            ("minRotationAngle", minRotationAngle), ("maxDuration", maxSwingDuration), ("maxRotationDuration", maxRotationDuration),
            ("tennis.window", tennis.window), ("tennis.yawThreshold", tennis.yawThreshold), ("tennis.rateThreshold", tennis.rateThreshold),
        ]
        if let problem = Self.firstInvalid("derivation.swing.", positive, must: "a positive number", { $0 > 0 }) { return problem }
        let nonNegative: [(String, Double)] = [
            ("maxOnsetExtrapolation", maxOnsetExtrapolation), ("minDuration", minSwingDuration), ("impactSlack", impactSlack),
        ]
        if let problem = Self.firstInvalid("derivation.swing.", nonNegative, must: "a non-negative number", { $0 >= 0 }) { return problem }
        if minSwingDuration >= maxSwingDuration {
            return ConfigurationProblem(
                key: "derivation.swing.minDuration", message: "must be below derivation.swing.maxDuration (\(maxSwingDuration)), got \(minSwingDuration)")
        }
        if highPassCutoff >= accelerometerRate / 2 {
            return ConfigurationProblem(
                key: "derivation.swing.highPassCutoff", message: "must be below the Nyquist frequency \(accelerometerRate / 2) Hz, got \(highPassCutoff)")
        }
        if !(tennis.resetFraction > 0 && tennis.resetFraction < 1) {
            return ConfigurationProblem(key: "derivation.swing.tennis.resetFraction", message: "must be between 0 and 1, got \(tennis.resetFraction)")
        }
        return nil
    }
}
