import TelemetryCore

extension SwingConfiguration {
    /// The `derivation.swing.*` keys (defaults: ``SwingConfiguration``'s).
    package static let keys: [ConfigurationKey] = [
        .number(
            "derivation.swing.alignmentWindow",
            "Seconds of device motion kept per device to align it with the accelerometer (swings are measured across batches).",
            in: 2...30, \.derivation.swing.alignmentWindow),
        .number(
            "derivation.swing.highPassCutoff", "Cutoff (Hz) of the Butterworth high-pass on accelerometer z that isolates ball impacts.",
            in: 5...200, \.derivation.swing.highPassCutoff),
        .number(
            "derivation.swing.impactThreshold", "Smallest high-passed |accelerometer z| (g) that is an impact.",
            in: 0.1...100, \.derivation.swing.impactThreshold),
        .number(
            "derivation.swing.startRate", "Rotation rate about gravity (rad/s) above which the wrist is swinging; the start scan's threshold.",
            in: 0.1...20, \.derivation.swing.startRate),
        .number(
            "derivation.swing.startConsistency", "Seconds the rate must stay below startRate, scanning back from the impact, to mark the start.",
            in: 0.001...0.2, \.derivation.swing.startConsistency),
        .number(
            "derivation.swing.maxOnsetExtrapolation",
            "Longest move (s) of the start from the threshold crossing back to the rotation onset (0: report the crossing).",
            in: 0...0.2, \.derivation.swing.maxOnsetExtrapolation),
        .number(
            "derivation.swing.minPeakRate", "Smallest peak rotation rate about gravity (rad/s) of a swing.",
            in: 0.5...100, \.derivation.swing.minPeakRate),
        .number(
            "derivation.swing.minRotationAngle", "Smallest rotation about gravity (rad) from start to impact, or to the peak rate of a miss.",
            in: 0...10, \.derivation.swing.minRotationAngle),
        .number("derivation.swing.minDuration", "Shortest time to contact (s).", in: 0...1, \.derivation.swing.minSwingDuration),
        .number(
            "derivation.swing.maxDuration", "Longest time to contact, or onset to peak of a miss (s).",
            in: 0.05...3, \.derivation.swing.maxSwingDuration),
        .number(
            "derivation.swing.impactSlack", "Seconds after the rotation drops below startRate in which an impact still belongs to the swing.",
            in: 0...0.5, \.derivation.swing.impactSlack),
        .number(
            "derivation.swing.maxRotationDuration", "A rotation above startRate lasting longer (s) is not a missed swing.",
            in: 0.1...10, \.derivation.swing.maxRotationDuration),
        .number(
            "derivation.swing.tennis.window", "Tennis stroke window (s) over which rotation about gravity is accumulated (SwingWatch: 1).",
            in: 0.2...5, \.derivation.swing.tennis.window),
        .number(
            "derivation.swing.tennis.yawThreshold", "Smallest accumulated rotation (rad) over the window for a stroke (SwingWatch: 1.95).",
            in: 0.1...20, \.derivation.swing.tennis.yawThreshold),
        .number(
            "derivation.swing.tennis.rateThreshold", "Smallest peak rotation rate (rad/s) in the window for a stroke (SwingWatch: 5.5).",
            in: 0.1...100, \.derivation.swing.tennis.rateThreshold),
        .number(
            "derivation.swing.tennis.resetFraction",
            "Counting re-arms when the newest half window's mean rate is below this fraction of rateThreshold (SwingWatch: 0.05).",
            in: 0.001...1, \.derivation.swing.tennis.resetFraction),
        .names(
            "derivation.swing.tennis.activityTypes", "Comma-separated workout activity types during which strokes are counted (null: always).",
            \.derivation.swing.tennis.activityTypes),
    ]
}
