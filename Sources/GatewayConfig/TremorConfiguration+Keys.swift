import TelemetryCore

extension TremorConfiguration {
    /// The `derivation.tremor.*` keys (defaults: ``TremorConfiguration``'s).
    package static let keys: [ConfigurationKey] = [
        .number(
            "derivation.tremor.windowLength", "Seconds per tremor analysis window; a minute's fractions are shares of its windows (docs/tremor.md).",
            in: 1...10, \.derivation.tremor.windowLength),
        .number(
            "derivation.tremor.minCoverage", "Fraction of a window's expected 50 Hz samples it must hold to be judged; fewer: unknown.",
            in: 0.1...1, \.derivation.tremor.minCoverage),
        .number(
            "derivation.tremor.voluntaryThreshold",
            "Change (g) of the mean acceleration vector between consecutive half windows above which the arm moved on purpose (unknown).",
            in: 0.01...4, \.derivation.tremor.voluntaryThreshold),
        .number(
            "derivation.tremor.minDisplacement", "Smallest peak-to-peak displacement (cm) that counts as tremor; below: none.",
            in: 0.001...5, \.derivation.tremor.minDisplacement),
        .number(
            "derivation.tremor.minProminence",
            "Smallest ratio of the spectrum's peak to its mean over the analysed grid for the peak to count as tremor.",
            in: 1...50, \.derivation.tremor.minProminence),
        .number("derivation.tremor.bandLow", "Lower edge (Hz) of the resting-tremor band.", in: 0.5...20, \.derivation.tremor.bandLow),
        .number(
            "derivation.tremor.bandHigh", "Upper edge (Hz) of the resting-tremor band (below 25 Hz, the Nyquist frequency at 50 Hz).",
            in: 1...24.5, \.derivation.tremor.bandHigh),
        .number(
            "derivation.tremor.bandMargin", "Hz beyond each band edge the spectrum is also evaluated; a peak there is not band tremor (none).",
            in: 0...2, \.derivation.tremor.bandMargin),
        .number(
            "derivation.tremor.frequencyStep", "Step (Hz) of the frequency grid the spectrum is evaluated on.",
            in: 0.005...0.5, \.derivation.tremor.frequencyStep),
    ]
}
