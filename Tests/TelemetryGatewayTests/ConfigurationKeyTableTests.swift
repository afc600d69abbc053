import Testing

import TelemetryCore
@testable import TelemetryGateway

/// The key table itself: one declaration per setting, defaults read from the configuration
/// types, checks reported under their own key.
@Suite("Configuration key table")
struct ConfigurationKeyTableTests {
    private static func issues(base: GatewayConfiguration, overrides: [(key: String, value: String)] = []) -> [ConfigurationIssue] {
        var base = base
        base.registryFile = nil
        do {
            _ = try ConfigurationLoader.load(file: nil, environment: [:], overrides: overrides, base: base)
            return []
        } catch {
            return error.issues
        }
    }

    @Test("every key's documented default is the default configuration's value, and reads back as it")
    func defaultsAreTheStructDefaults() {
        let defaults = GatewayConfiguration()
        for key in GatewayConfiguration.keys {
            #expect(key.describe(defaults) == key.defaultValue, "\(key.path)")
            // The documented default, given as configuration, is accepted and keeps the value
            // ("(none)" and "(host name)" document an unset optional: null).
            var configuration = defaults
            let text = key.defaultValue.hasPrefix("(") ? "null" : key.defaultValue
            #expect(key.apply(&configuration, text) == nil, "\(key.path) refuses its own default '\(text)'")
            #expect(key.describe(configuration) == key.defaultValue, "\(key.path)")
        }
    }

    @Test("a value set through a key is what the key describes")
    func describeFollowsTheProperty() {
        var configuration = GatewayConfiguration()
        let set: [(String, String, String)] = [
            ("mqtt.keepalive", "40", "40"), ("mqtt.sessionExpiry", "0", "0"), ("pipeline.drainTimeout", "2.5", "2.5"),
            ("http.listen", "off", "off"), ("cluster.instance", "gw-1", "gw-1"), ("derivation.run.activityTypes", "walking, running", "running,walking"),
            ("logging.level", "DEBUG", "debug"), ("mqtt.broker", "mqtts://broker.local", "mqtts://broker.local:8883"),
        ]
        for (path, text, described) in set {
            guard let key = GatewayConfiguration.keys.first(where: { $0.path == path }) else {
                Issue.record("\(path) is not a key")
                continue
            }
            #expect(key.apply(&configuration, text) == nil)
            #expect(key.describe(configuration) == described, "\(path)")
        }
        #expect(configuration.mqtt.keepalive == 40 && configuration.mqtt.sessionExpiry == 0 && configuration.cluster.instance == "gw-1")
    }

    @Test("paths are unique and each section's keys are together (the types' tables concatenated)")
    func pathsUniqueAndGrouped() {
        let paths = GatewayConfiguration.keys.map(\.path)
        #expect(Set(paths).count == paths.count)
        let sections = paths.map { $0.split(separator: ".").first.map(String.init) ?? $0 }
        var seen: [String] = []
        for section in sections where seen.last != section {
            #expect(!seen.contains(section), "the \(section).* keys are split")
            seen.append(section)
        }
    }

    @Test("a bad root of a programmatic base is reported under its own key")
    func badRootNamesItsKey() {
        var base = GatewayConfiguration()
        base.topics.inboundRoot = "wear+ables"
        let inbound = Self.issues(base: base)
        #expect(inbound.map(\.key) == ["topics.inboundRoot"])
        #expect(inbound.first?.message.contains("'+'") == true, "\(inbound)")
        base = GatewayConfiguration()
        base.topics.outboundRoot = "/gateway"
        #expect(Self.issues(base: base).map(\.key) == ["topics.outboundRoot"])
        // A bad value from a source is refused where it is read, and the default kept: one issue.
        #expect(Self.issues(base: GatewayConfiguration(), overrides: [("topics.inboundRoot", "a//b")]).map(\.key) == ["topics.inboundRoot"])
    }

    @Test("a deriver's problem in a programmatic base is reported under the key it names", arguments: [
        "derivation.run.idleTimeout", "derivation.submersion.surfaceTimeout", "derivation.swing.minDuration",
        "derivation.headphones.posture.hysteresis", "session.endGrace", "derivation.tremor.bandLow",
    ])
    func deriverProblemNamesItsKey(key: String) {
        var base = GatewayConfiguration()
        switch key {
        case "derivation.run.idleTimeout": base.derivation.run.idleTimeout = -1
        case "derivation.submersion.surfaceTimeout": base.derivation.submersion.surfaceTimeout = .nan
        case "derivation.swing.minDuration": base.derivation.swing.minSwingDuration = 0.7
        case "derivation.headphones.posture.hysteresis": base.derivation.headphones.postureHysteresis = 30
        case "session.endGrace": base.derivation.sessionEndGrace = -0.5
        default: base.derivation.tremor.bandLow = 8
        }
        #expect(base.derivation.configurationIssue?.key == key, "the case does not trigger \(key)")
        #expect(Self.issues(base: base).map(\.key) == [key])
    }

    @Test("--set settings split at the first '='; every one without '=' is reported")
    func settings() throws {
        let overrides = try ConfigurationLoader.overrides(parsingSettings: ["mqtt.keepalive=40", "mqtt.password=a=b", "mqtt.username="])
        #expect(overrides.map(\.key) == ["mqtt.keepalive", "mqtt.password", "mqtt.username"])
        #expect(overrides.map(\.value) == ["40", "a=b", ""])
        do {
            _ = try ConfigurationLoader.overrides(parsingSettings: ["mqtt.keepalive", "a=1", "b"])
            Issue.record("settings without '=' were accepted")
        } catch {
            #expect(error.issues.map(\.key) == ["mqtt.keepalive", "b"])
            #expect(error.issues.allSatisfy { $0.source == "--set" && $0.message == "expected key=value" })
        }
    }
}
