import TelemetryCore

extension RunConfiguration {
    /// The `derivation.run.*` keys (defaults: ``RunConfiguration``'s).
    package static let keys: [ConfigurationKey] = [
        .number(
            "derivation.run.hillHeight", "Elevation gain (m) from which a run segment is flagged hill: true (docs/run-segments.md).",
            in: 0...1000, \.derivation.run.hillHeight),
        .number(
            "derivation.run.elevationDeadband",
            "Metres the smoothed altitude must move against its direction before a climb or descent counts (keeps barometer noise out).",
            in: 0...20, \.derivation.run.elevationDeadband),
        .number(
            "derivation.run.altitudeSmoothing", "Width (s) of the moving average over altimeter samples before the dead band (0: none).",
            in: 0...60, \.derivation.run.altitudeSmoothing),
        .number(
            "derivation.run.finalizeTimeout",
            "Longest wait (s, gateway clock) for pedometer and altimeter data covering a segment's end before it is published anyway.",
            in: 0...3600, \.derivation.run.finalizeTimeout),
        .number(
            "derivation.run.idleTimeout",
            "Without a workout, pedometer events alone bound segments; the implicit activity closes after this many seconds paused (gateway clock).",
            in: 1...86400, \.derivation.run.idleTimeout),
        .integer(
            "derivation.run.maxAltitudeSamples", "Most altimeter samples kept per device for the current workout (oldest dropped).",
            in: 2...1_000_000, \.derivation.run.maxAltitudeSamples),
        .integer(
            "derivation.run.maxPedometerUpdates", "Most cumulative pedometer updates kept per device (oldest dropped).",
            in: 2...1_000_000, \.derivation.run.maxPedometerUpdates),
        .integer(
            "derivation.run.maxPendingEvents", "Most pause/resume events waiting per workout (after the last published segment).",
            in: 2...100_000, \.derivation.run.maxPendingEvents),
        .names(
            "derivation.run.activityTypes", "Comma-separated workout activity types that have run segments (null: every workout).",
            \.derivation.run.activityTypes),
    ]
}
