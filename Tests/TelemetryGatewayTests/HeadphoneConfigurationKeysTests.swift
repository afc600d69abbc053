import Testing

import TelemetryCore
@testable import TelemetryGateway

/// The `derivation.headphones.*` keys: defaults, every key applied, bounds and the
/// hysteresis-below-angle rule.
@Suite("Headphone configuration keys")
struct HeadphoneConfigurationKeysTests {
    private func load(_ overrides: [(String, String)]) throws -> HeadphoneConfiguration {
        try ConfigurationLoader.load(file: nil, environment: [:], overrides: [("registry.file", "null")] + overrides.map { (key: $0.0, value: $0.1) })
            .configuration.derivation.headphones
    }

    @Test("defaults are the documented ones")
    func defaults() throws {
        #expect(try load([]) == HeadphoneConfiguration())
        let keys = GatewayConfiguration.keys.filter { $0.path.hasPrefix("derivation.headphones.") }
        #expect(keys.map(\.path).count == 10)
        #expect(keys.first { $0.path == "derivation.headphones.streamTimeout" }?.defaultValue == "2.0")
        #expect(keys.first { $0.path == "derivation.headphones.poseRate" }?.defaultValue == "10.0")
    }

    @Test("every key reaches its setting, also from the environment")
    func everyKey() throws {
        let loaded = try load([
            ("derivation.headphones.streamTimeout", "3"), ("derivation.headphones.resumeSpan", "0"), ("derivation.headphones.poseRate", "5"),
            ("derivation.headphones.posture.angle", "25"), ("derivation.headphones.posture.duration", "60"),
            ("derivation.headphones.posture.hysteresis", "4"), ("derivation.headphones.gesture.rotationRate", "1.5"),
            ("derivation.headphones.gesture.swings", "4"), ("derivation.headphones.gesture.swingGap", "0.6"),
            ("derivation.headphones.gesture.dominance", "3"),
        ])
        var expected = HeadphoneConfiguration()
        expected.streamTimeout = 3
        expected.resumeSpan = 0
        expected.poseRate = 5
        expected.postureAngle = 25
        expected.postureDuration = 60
        expected.postureHysteresis = 4
        expected.gestureRotationRate = 1.5
        expected.gestureSwings = 4
        expected.gestureSwingGap = 0.6
        expected.gestureDominance = 3
        #expect(loaded == expected)
        let fromEnvironment = try ConfigurationLoader.load(
            file: nil, environment: ["WG_DERIVATION_HEADPHONES_STREAM_TIMEOUT": "4"], overrides: [("registry.file", "null")])
        #expect(fromEnvironment.configuration.derivation.headphones.streamTimeout == 4)
    }

    @Test("out-of-range values and a hysteresis not below the angle are refused, naming the key")
    func refused() {
        for (key, value) in [
            ("derivation.headphones.streamTimeout", "0"), ("derivation.headphones.poseRate", "0"), ("derivation.headphones.posture.angle", "90"),
            ("derivation.headphones.gesture.swings", "1"), ("derivation.headphones.gesture.dominance", "0.5"),
        ] {
            #expect(throws: ConfigurationError.self, "\(key)=\(value)") { try load([(key, value)]) }
        }
        do {
            _ = try load([("derivation.headphones.posture.angle", "10"), ("derivation.headphones.posture.hysteresis", "10")])
            Issue.record("hysteresis equal to the angle was accepted")
        } catch let error as ConfigurationError {
            #expect(error.issues.map(\.key) == ["derivation.headphones.posture.hysteresis"])
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
