import Testing

import TelemetryCore
@testable import TelemetryGateway

/// The one configuration-check shape: every deriver's settings name the key of their first
/// problem, and the loader runs them all.
@Suite("Derivation configuration checks")
struct DerivationConfigurationCheckTests {
    @Test("the defaults of every deriver pass")
    func defaultsPass() {
        let configuration = DerivationConfiguration()
        #expect(configuration.configurationIssue == nil)
        let derivers: [any ConfigurationChecking] = [
            configuration.submersion, configuration.headphones, configuration.swing, configuration.run, configuration.tremor,
        ]
        #expect(derivers.allSatisfy { $0.configurationIssue == nil })
    }

    @Test("each deriver's check names the key, also through the combined check")
    func keysNamed() {
        var configuration = DerivationConfiguration()
        configuration.run.idleTimeout = -1
        #expect(configuration.configurationIssue?.key == "derivation.run.idleTimeout")
        configuration = DerivationConfiguration()
        configuration.submersion.surfaceTimeout = .nan
        #expect(configuration.configurationIssue?.key == "derivation.submersion.surfaceTimeout")
        configuration = DerivationConfiguration()
        configuration.swing.minSwingDuration = 0.7
        #expect(configuration.configurationIssue?.key == "derivation.swing.minDuration")
        #expect(configuration.configurationProblem?.hasPrefix("derivation.swing.minDuration must be below") == true)
        configuration = DerivationConfiguration()
        configuration.headphones.postureHysteresis = 30
        #expect(configuration.configurationIssue?.key == "derivation.headphones.posture.hysteresis")
        configuration = DerivationConfiguration()
        configuration.sessionEndGrace = -0.5
        #expect(configuration.configurationIssue?.key == "session.endGrace")
    }

    @Test("the loader reports a deriver's cross-key problem with its key, once")
    func loaderRunsTheChecks() {
        let overrides = [("registry.file", "null"), ("derivation.swing.minDuration", "0.6"), ("derivation.swing.maxDuration", "0.5")]
        do {
            _ = try ConfigurationLoader.load(file: nil, environment: [:], overrides: overrides.map { (key: $0.0, value: $0.1) })
            Issue.record("minDuration above maxDuration was accepted")
        } catch {
            #expect(error.issues.map(\.key) == ["derivation.swing.minDuration"])
        }
    }
}
