import Testing

@testable import TelemetryCore
@testable import TelemetryGateway

/// The `derivation.swing.*` keys.
@Suite("Swing configuration keys")
struct SwingConfigurationKeysTests {
    @Test("defaults are the documented ones, and every key applies")
    func keysApply() throws {
        let defaults = try ConfigurationLoader.load(file: nil, environment: [:], overrides: [("registry.file", "null")]).configuration
        #expect(defaults.derivation.swing == SwingConfiguration())
        #expect(defaults.derivation.swing.tennis.activityTypes == ["tennis"])

        let overrides: [(key: String, value: String)] = [
            ("registry.file", "null"), ("derivation.swing.alignmentWindow", "6"), ("derivation.swing.highPassCutoff", "40"),
            ("derivation.swing.impactThreshold", "2.5"), ("derivation.swing.startRate", "2"), ("derivation.swing.startConsistency", "0.02"),
            ("derivation.swing.maxOnsetExtrapolation", "0"), ("derivation.swing.minPeakRate", "10"), ("derivation.swing.minRotationAngle", "1.2"),
            ("derivation.swing.minDuration", "0.08"), ("derivation.swing.maxDuration", "0.5"), ("derivation.swing.impactSlack", "0.04"),
            ("derivation.swing.maxRotationDuration", "2"), ("derivation.swing.tennis.window", "0.8"), ("derivation.swing.tennis.yawThreshold", "2.1"),
            ("derivation.swing.tennis.rateThreshold", "6"), ("derivation.swing.tennis.resetFraction", "0.1"),
            ("derivation.swing.tennis.activityTypes", "tennis, pickleball,squash"),
        ]
        let swing = try ConfigurationLoader.load(file: nil, environment: [:], overrides: overrides).configuration.derivation.swing
        #expect(swing.alignmentWindow == 6 && swing.highPassCutoff == 40 && swing.impactThreshold == 2.5)
        #expect(swing.startRate == 2 && swing.startConsistency == 0.02 && swing.maxOnsetExtrapolation == 0)
        #expect(swing.minPeakRate == 10 && swing.minRotationAngle == 1.2 && swing.minSwingDuration == 0.08 && swing.maxSwingDuration == 0.5)
        #expect(swing.impactSlack == 0.04 && swing.maxRotationDuration == 2)
        #expect(swing.tennis.window == 0.8 && swing.tennis.yawThreshold == 2.1 && swing.tennis.rateThreshold == 6 && swing.tennis.resetFraction == 0.1)
        #expect(swing.tennis.activityTypes == ["tennis", "pickleball", "squash"])
    }

    @Test("environment variables and null")
    func environment() throws {
        let loaded = try ConfigurationLoader.load(
            file: nil, environment: ["WG_DERIVATION_SWING_MIN_PEAK_RATE": "9", "WG_DERIVATION_SWING_TENNIS_ACTIVITY_TYPES": "null"],
            overrides: [("registry.file", "null")])
        #expect(loaded.configuration.derivation.swing.minPeakRate == 9)
        #expect(loaded.configuration.derivation.swing.tennis.activityTypes.isEmpty, "null: count strokes whenever motion arrives")
    }

    @Test("out-of-range values are refused with the allowed range", arguments: [
        ("derivation.swing.highPassCutoff", "450"), ("derivation.swing.impactThreshold", "0"), ("derivation.swing.alignmentWindow", "1"),
        ("derivation.swing.tennis.yawThreshold", "fast"),
    ])
    func invalid(key: String, value: String) {
        do {
            _ = try ConfigurationLoader.load(file: nil, environment: [:], overrides: [("registry.file", "null"), (key, value)])
            Issue.record("\(key)=\(value) was accepted")
        } catch {
            #expect(error.issues.contains { $0.key == key && $0.message.contains("must be a number") })
        }
    }
}
