import Testing

@testable import TelemetryCore
@testable import TelemetryGateway

/// The `derivation.run.*` keys.
@Suite("Run configuration keys")
struct RunConfigurationKeysTests {
    @Test("defaults are the documented ones, and every key applies")
    func keysApply() throws {
        let defaults = try ConfigurationLoader.load(file: nil, environment: [:], overrides: [("registry.file", "null")]).configuration
        #expect(defaults.derivation.run == RunConfiguration())
        #expect(defaults.derivation.run.hillHeight == 10 && defaults.derivation.run.elevationDeadband == 1 && defaults.derivation.run.finalizeTimeout == 10)
        #expect(defaults.derivation.run.activityTypes == ["running", "walking", "hiking"])

        let overrides: [(key: String, value: String)] = [
            ("registry.file", "null"), ("derivation.run.hillHeight", "15"), ("derivation.run.elevationDeadband", "0.5"),
            ("derivation.run.altitudeSmoothing", "0"), ("derivation.run.finalizeTimeout", "30"), ("derivation.run.maxAltitudeSamples", "5000"),
            ("derivation.run.maxPedometerUpdates", "4000"), ("derivation.run.maxPendingEvents", "200"),
            ("derivation.run.activityTypes", "running, trailRunning"),
        ]
        let run = try ConfigurationLoader.load(file: nil, environment: [:], overrides: overrides).configuration.derivation.run
        #expect(run.hillHeight == 15 && run.elevationDeadband == 0.5 && run.altitudeSmoothing == 0 && run.finalizeTimeout == 30)
        #expect(run.maxAltitudeSamples == 5_000 && run.maxPedometerUpdates == 4_000 && run.maxPendingEvents == 200)
        #expect(run.activityTypes == ["running", "trailRunning"])
        #expect(run.configurationProblem == nil)
    }

    @Test("environment variables and null")
    func environment() throws {
        let loaded = try ConfigurationLoader.load(
            file: nil, environment: ["WG_DERIVATION_RUN_HILL_HEIGHT": "12", "WG_DERIVATION_RUN_ACTIVITY_TYPES": "null"],
            overrides: [("registry.file", "null")])
        #expect(loaded.configuration.derivation.run.hillHeight == 12)
        #expect(loaded.configuration.derivation.run.activityTypes.isEmpty, "null: every workout")
    }

    @Test("out-of-range values are refused with the allowed range", arguments: [
        ("derivation.run.hillHeight", "-1", "must be a number"), ("derivation.run.finalizeTimeout", "soon", "must be a number"),
        ("derivation.run.maxAltitudeSamples", "1", "must be a whole number"), ("derivation.run.maxPendingEvents", "2.5", "must be a whole number"),
    ])
    func invalid(key: String, value: String, message: String) {
        do {
            _ = try ConfigurationLoader.load(file: nil, environment: [:], overrides: [("registry.file", "null"), (key, value)])
            Issue.record("\(key)=\(value) was accepted")
        } catch {
            #expect(error.issues.contains { $0.key == key && $0.message.contains(message) })
        }
    }
}
