import Testing

@testable import TelemetryCore
@testable import TelemetryGateway

/// The `derivation.tremor.*` keys.
@Suite("Tremor configuration keys")
struct TremorConfigurationKeysTests {
    @Test("defaults are the documented ones, and every key applies")
    func keysApply() throws {
        let defaults = try ConfigurationLoader.load(file: nil, environment: [:], overrides: [("registry.file", "null")]).configuration
        #expect(defaults.derivation.tremor == TremorConfiguration())

        let overrides: [(key: String, value: String)] = [
            ("registry.file", "null"), ("derivation.tremor.windowLength", "3"), ("derivation.tremor.minCoverage", "0.9"),
            ("derivation.tremor.voluntaryThreshold", "0.25"), ("derivation.tremor.minDisplacement", "0.08"), ("derivation.tremor.minProminence", "4"),
            ("derivation.tremor.bandLow", "3.5"), ("derivation.tremor.bandHigh", "7.5"), ("derivation.tremor.bandMargin", "0.4"),
            ("derivation.tremor.frequencyStep", "0.05"),
        ]
        let tremor = try ConfigurationLoader.load(file: nil, environment: [:], overrides: overrides).configuration.derivation.tremor
        #expect(tremor.windowLength == 3 && tremor.minCoverage == 0.9 && tremor.voluntaryThreshold == 0.25)
        #expect(tremor.minDisplacement == 0.08 && tremor.minProminence == 4)
        #expect(tremor.bandLow == 3.5 && tremor.bandHigh == 7.5 && tremor.bandMargin == 0.4 && tremor.frequencyStep == 0.05)
        #expect(tremor.configurationProblem == nil)
    }

    @Test("environment variables")
    func environment() throws {
        let loaded = try ConfigurationLoader.load(
            file: nil, environment: ["WG_DERIVATION_TREMOR_MIN_DISPLACEMENT": "0.1", "WG_DERIVATION_TREMOR_WINDOW_LENGTH": "4"],
            overrides: [("registry.file", "null")])
        #expect(loaded.configuration.derivation.tremor.minDisplacement == 0.1)
        #expect(loaded.configuration.derivation.tremor.windowLength == 4)
    }

    @Test("out-of-range values are refused with the allowed range", arguments: [
        ("derivation.tremor.windowLength", "0.2"), ("derivation.tremor.minCoverage", "1.5"), ("derivation.tremor.bandHigh", "30"),
        ("derivation.tremor.frequencyStep", "fine"),
    ])
    func invalid(key: String, value: String) {
        do {
            _ = try ConfigurationLoader.load(file: nil, environment: [:], overrides: [("registry.file", "null"), (key, value)])
            Issue.record("\(key)=\(value) was accepted")
        } catch {
            #expect(error.issues.contains { $0.key == key && $0.message.contains("must be a number") })
        }
    }

    @Test("settings that only conflict together are refused, naming the key", arguments: [
        ([("derivation.tremor.bandLow", "8"), ("derivation.tremor.bandHigh", "7")], "derivation.tremor.bandLow"),
        ([("derivation.tremor.bandHigh", "24.5"), ("derivation.tremor.bandMargin", "1")], "derivation.tremor.bandMargin"),
        ([("derivation.tremor.windowLength", "1"), ("derivation.tremor.bandLow", "5"), ("derivation.tremor.bandHigh", "7")], "derivation.tremor.windowLength"),
    ])
    func crossKey(pairs: [(String, String)], key: String) {
        do {
            _ = try ConfigurationLoader.load(file: nil, environment: [:], overrides: [("registry.file", "null")] + pairs)
            Issue.record("\(pairs) was accepted")
        } catch {
            #expect(error.issues.contains { $0.key == key }, "\(error.issues)")
        }
    }
}
