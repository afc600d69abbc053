/// Settings of the tremor analysis of historical accelerometer data (`gateway/{id}/tremor`);
/// gateway keys `derivation.tremor.*`.
///
/// Core Motion publishes no thresholds for `CMMovementDisorderManager`, so these are the
/// project's; each default carries its reasoning, worked out in `docs/tremor.md`.
public struct TremorConfiguration: Sendable, Equatable, ConfigurationChecking, Codable {
    /// Nominal rate of `recorder/accelerometer`, Hz (CMSensorRecorder records at 50 Hz). Sizes
    /// the windows and places each sample in its slot. No configuration key: the rate is Core
    /// Motion's, not a choice.
    public var sampleRate: Double = 50
    /// Length of the analysis windows, s; a minute is 30 windows. 2 s give a spectral
    /// resolution of 0.5 Hz (the Hann main lobe is ±1 Hz, a quarter of the 3–7 Hz band) and at
    /// least 6 cycles of a 3 Hz tremor, yet are short enough to end close to a voluntary movement.
    public var windowLength: Double = 2
    /// Smallest fraction of a window's expected samples (`windowLength × sampleRate`) it must hold
    /// to be judged; fewer is `unknown` (data missing). 80 %: a gap of up to 0.4 s in a 2 s
    /// window changes the amplitude estimate little (it is normalised by the weights present).
    public var minCoverage: Double = 0.8
    /// Largest change, g, between the Hann-weighted mean acceleration vectors of consecutive half
    /// windows (within a window and across its boundaries) at rest; more is a voluntary movement
    /// and makes the windows on both sides `unknown`. 0.2 g is a 12° turn of the
    /// forearm in one second (gravity's projection changes by 2·sin(θ/2) g) or a reach
    /// accelerating the wrist by 2 m/s². Tremor at 3 Hz and above leaks at most 1.7 % of its
    /// acceleration amplitude into that difference (Hann weighting over 1 s halves; a plain mean
    /// would leak 18 %), so even a 14 cm peak-to-peak tremor at 3 Hz (2.5 g) moves it by only
    /// 0.04 g; the threshold would take a 3 Hz tremor of 12 g.
    public var voluntaryThreshold: Double = 0.2
    /// Smallest peak-to-peak displacement, cm, that is tremor; below it the window is `none`.
    /// Sensor noise of 0.005 g per axis (white, 50 Hz) yields apparent peaks of at most
    /// ≈ 0.025 cm at 3 Hz in 2 s windows (less at higher frequencies, since displacement falls
    /// with 1/f²); 0.05 cm leaves a factor of two.
    public var minDisplacement: Double = 0.05
    /// Smallest ratio of the spectrum's peak to its mean over the analysed grid for the peak to
    /// be tremor. A sinusoid gives 6.7–7; white noise gives 2.0 typically and above 3.3 in 1 % of
    /// windows; broadband movement (fidgeting) stays near noise values.
    public var minProminence: Double = 3
    /// Lower edge of the tremor band, Hz (resting tremor: 3–7 Hz, as Core Motion's).
    public var bandLow: Double = 3
    /// Upper edge of the tremor band, Hz.
    public var bandHigh: Double = 7
    /// The spectrum is also evaluated this far beyond each band edge, Hz, and a window whose
    /// peak lies out there is `none`: movement below the band (a reach's acceleration peaks at
    /// 1–2 Hz and leaks into 3 Hz) or physiological tremor above it (8–12 Hz) is not band
    /// tremor. 0.5 Hz is the resolution of a 2 s window.
    public var bandMargin: Double = 0.5
    /// Step of the frequency grid the spectrum is evaluated on, Hz. 0.02 Hz keeps the loss
    /// between grid points below 0.01 % of the amplitude and the peak frequency within 0.01 Hz
    /// of the grid's best; 251 frequencies over 2.5–7.5 Hz (the band and its margins).
    public var frequencyStep: Double = 0.02

    /// Creates the defaults.
    public init() {}

    /// Samples a full window holds: `windowLength × sampleRate`, rounded.
    public var samplesPerWindow: Int {
        let count = (windowLength * sampleRate).rounded()
        return count.isFinite && count > 0 && count < 1e7 ? Int(count) : 0
    }

    /// The frequencies the spectrum is evaluated at, Hz: from `bandLow − bandMargin` up to
    /// `bandHigh + bandMargin` in steps of `frequencyStep`, with the band's edges on the grid.
    public var frequencies: [Double] {
        guard frequencyStep > 0, bandHigh >= bandLow, bandMargin >= 0, (bandHigh - bandLow + 2 * bandMargin) / frequencyStep < 100_000 else { return [] }
        // The small slack keeps the band's edges on the grid despite rounding in the division.
        let below = Int((bandMargin / frequencyStep + 1e-9).rounded(.down))
        let above = Int(((bandHigh + bandMargin - bandLow) / frequencyStep + 1e-9).rounded(.down))
        return (-below...above).map { bandLow + Double($0) * frequencyStep }
    }

    /// Whether a grid frequency lies inside the band (half a step of slack for rounding).
    func isInBand(_ frequency: Double) -> Bool {
        frequency >= bandLow - frequencyStep / 2 && frequency <= bandHigh + frequencyStep / 2
    }

    /// The key and what is wrong with it, or nil when the settings are usable.
    ///
    /// The gateway's keys bound each value on its own; this also checks what spans several
    /// (the band below the Nyquist frequency, a window long enough for the band).
    public var configurationIssue: ConfigurationProblem? {
        let positive: [(String, Double)] = [
            ("sampleRate", sampleRate), ("windowLength", windowLength), ("minCoverage", minCoverage), ("voluntaryThreshold", voluntaryThreshold),
            ("minDisplacement", minDisplacement), ("bandLow", bandLow), ("bandHigh", bandHigh), ("frequencyStep", frequencyStep),
        ]
        for (name, value) in positive where !(value.isFinite && value > 0) {
            return ConfigurationProblem(key: "derivation.tremor.\(name)", message: "must be a positive number, got \(value)")
        }
        if minCoverage > 1 { return ConfigurationProblem(key: "derivation.tremor.minCoverage", message: "must be at most 1, got \(minCoverage)") }
        if !(bandMargin.isFinite && bandMargin >= 0) { return ConfigurationProblem(key: "derivation.tremor.bandMargin", message: "must be 0 or more, got \(bandMargin)") }
        if bandLow - bandMargin <= 0 {
            return ConfigurationProblem(key: "derivation.tremor.bandMargin", message: "must leave bandLow − bandMargin above 0 Hz, got \(bandMargin) below \(bandLow) Hz")
        }
        if !(minProminence.isFinite && minProminence >= 1) { return ConfigurationProblem(key: "derivation.tremor.minProminence", message: "must be 1 or more, got \(minProminence)") }
        if bandLow >= bandHigh { return ConfigurationProblem(key: "derivation.tremor.bandLow", message: "must be below derivation.tremor.bandHigh (\(bandHigh)), got \(bandLow)") }
        if bandHigh >= sampleRate / 2 {
            return ConfigurationProblem(key: "derivation.tremor.bandHigh", message: "must be below the Nyquist frequency \(sampleRate / 2) Hz, got \(bandHigh)")
        }
        if bandHigh + bandMargin >= sampleRate / 2 {
            return ConfigurationProblem(key: "derivation.tremor.bandMargin", message: "must keep bandHigh + bandMargin below the Nyquist frequency \(sampleRate / 2) Hz, got \(bandMargin)")
        }
        if frequencyStep > bandHigh - bandLow {
            return ConfigurationProblem(key: "derivation.tremor.frequencyStep", message: "must not exceed the band's width \(bandHigh - bandLow) Hz, got \(frequencyStep)")
        }
        if (bandHigh - bandLow + 2 * bandMargin) / frequencyStep > 10_000 {
            return ConfigurationProblem(key: "derivation.tremor.frequencyStep", message: "gives more than 10,000 frequencies over the band and margins; got \(frequencyStep)")
        }
        // The Hann main lobe is ±2/windowLength wide: it must fit the band twice to tell a peak.
        if windowLength * (bandHigh - bandLow) < 4 {
            return ConfigurationProblem(key: "derivation.tremor.windowLength", message: "must be at least 4 / band width = \(4 / (bandHigh - bandLow)) s, got \(windowLength)")
        }
        if samplesPerWindow < 16 || samplesPerWindow > 100_000 {
            return ConfigurationProblem(key: "derivation.tremor.windowLength", message: "must hold 16 to 100,000 samples at \(sampleRate) Hz, got \(samplesPerWindow)")
        }
        return nil
    }

}
