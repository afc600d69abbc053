import TelemetryCore

extension SubmersionConfiguration {
    /// The `derivation.submersion.*` keys (defaults: ``SubmersionConfiguration``'s).
    package static let keys: [ConfigurationKey] = [
        .number(
            "derivation.submersion.hysteresis",
            "Metres the depth must cross back over a band boundary before a shallower depth state is published (docs/submersion.md).",
            in: 0...0.5, \.derivation.submersion.hysteresis),
        .number(
            "derivation.submersion.waterDensity",
            "Water density (kg/m³) for depth from pressure when a measurement has no depth: 1025 sea water, 997 fresh water.",
            in: 950...1100, \.derivation.submersion.waterDensity),
        .number(
            "derivation.submersion.diveEndSilence",
            "Seconds without submersion frames after which an open dive ends (summary endReason silence, depth state unknown).",
            in: 1...86400, \.derivation.submersion.diveEndSilence),
        .number(
            "derivation.submersion.surfaceTimeout",
            "Seconds measurements must say the surface (depth below 0.3 m, or none with the watch's notSubmerged) before an open dive ends without its notSubmerged event.",
            in: 1...86400, \.derivation.submersion.surfaceTimeout),
        .number(
            "derivation.submersion.ascentRate.limit", "Ascent rate (m/min) above which gateway/{id}/submersion/ascent-warning is published.",
            in: 1...100, \.derivation.submersion.ascentRateLimit),
        .number(
            "derivation.submersion.ascentRate.window", "Seconds the ascent rate is measured over.",
            in: 0.5...60, \.derivation.submersion.ascentRateWindow),
        .number(
            "derivation.submersion.safetyStop.requiredBeyond",
            "Dives deeper than this (m) need a safety stop; surfacing without one publishes a safety-stop hint.",
            in: 0...200, \.derivation.submersion.safetyStopRequiredBeyond),
        .number("derivation.submersion.safetyStop.depth", "Centre of the safety-stop band, m.", in: 0...50, \.derivation.submersion.safetyStopDepth),
        .number(
            "derivation.submersion.safetyStop.tolerance", "Half width of the safety-stop band, m (4.5 ± 1.5: 3–6 m).",
            in: 0...20, \.derivation.submersion.safetyStopTolerance),
        .number(
            "derivation.submersion.safetyStop.duration", "Seconds the diver must stay in the band for the safety stop to count.",
            in: 1...3600, \.derivation.submersion.safetyStopDuration),
        .number(
            "derivation.submersion.temperature.convergedBelow",
            "Water temperature is flagged converged once a reading of the dive has an uncertainty below this (°C).",
            in: 0.01...10, \.derivation.submersion.temperatureConvergedBelow),
    ]
}
