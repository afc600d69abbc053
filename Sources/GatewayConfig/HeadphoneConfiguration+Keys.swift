import TelemetryCore

extension HeadphoneConfiguration {
    /// The `derivation.headphones.*` keys (defaults: ``HeadphoneConfiguration``'s).
    package static let keys: [ConfigurationKey] = [
        .number(
            "derivation.headphones.streamTimeout",
            "Seconds without headphone motion before connected headphones become disconnected (reason streamTimeout).",
            in: 0.1...3600, \.derivation.headphones.streamTimeout),
        .number(
            "derivation.headphones.resumeSpan",
            "Seconds of sample time motion must keep arriving while disconnected to count as connected again (streamResumed); 0: at once.",
            in: 0...60, \.derivation.headphones.resumeSpan),
        .number(
            "derivation.headphones.poseRate", "Most gateway/{id}/headphone/pose messages per second (sample time).",
            in: 0.1...1000, \.derivation.headphones.poseRate),
        .number(
            "derivation.headphones.posture.angle", "Degrees below the reference pitch that count as head down.",
            in: 1...89, \.derivation.headphones.postureAngle),
        .number(
            "derivation.headphones.posture.duration", "Seconds the head must stay down before headDown is published.",
            in: 0...86400, \.derivation.headphones.postureDuration),
        .number(
            "derivation.headphones.posture.hysteresis",
            "Degrees the head must come back past the posture angle before upright is published (below posture.angle).",
            in: 0...88, \.derivation.headphones.postureHysteresis),
        .number(
            "derivation.headphones.gesture.rotationRate", "Rotation rate (rad/s) each swing of a nod or shake must reach.",
            in: 0.1...50, \.derivation.headphones.gestureRotationRate),
        .integer(
            "derivation.headphones.gesture.swings", "Alternating swings that make a nod or shake.",
            in: 2...20, \.derivation.headphones.gestureSwings),
        .number(
            "derivation.headphones.gesture.swingGap", "Longest pause (s) between the starts of consecutive swings of one gesture.",
            in: 0.05...10, \.derivation.headphones.gestureSwingGap),
        .number(
            "derivation.headphones.gesture.dominance", "How many times the gesture axis's rate must exceed the other axis's for a swing.",
            in: 1...100, \.derivation.headphones.gestureDominance),
    ]
}
