import Foundation
import Logging
import MQTTTransport
import Testing

@testable import TelemetryGateway

@Suite("Configuration loading and validation")
struct ConfigurationLoaderTests {
    private func withFile<T>(_ yaml: String, _ body: (String) throws -> T) throws -> T {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gw-\(UUID().uuidString).yml").path
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try body(path)
    }

    private func issues(file: String? = nil, environment: [String: String] = [:], overrides: [(key: String, value: String)] = []) -> [ConfigurationIssue] {
        do {
            _ = try ConfigurationLoader.load(file: file, environment: environment, overrides: overrides)
            return []
        } catch {
            return error.issues
        }
    }

    @Test("defaults are valid and match the documented values")
    func defaults() throws {
        let loaded = try ConfigurationLoader.load(file: nil, environment: [:], overrides: [("registry.file", "null")])
        let configuration = loaded.configuration
        #expect(configuration.mqtt.broker == BrokerURL(host: "127.0.0.1", port: 1883))
        #expect(configuration.mqtt.keepalive == 30)
        #expect(configuration.pipeline.maximumPayloadBytes == 1_048_576)
        #expect(configuration.topics.inboundRoot == "wearables")
        #expect(configuration.logLevel == .info)
    }

    @Test("the repository's config/gateway.yml is valid")
    func shippedFileIsValid() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let loaded = try ConfigurationLoader.load(
            file: root.appendingPathComponent("config/gateway.yml").path, environment: [:],
            overrides: [("registry.file", root.appendingPathComponent("config/devices.yml").path)])
        #expect(loaded.configuration.mqtt.sessionExpiry == 3600)
    }

    @Test("file values apply; environment beats file; flags beat environment")
    func precedence() throws {
        try withFile("mqtt:\n  keepalive: 40\n  broker: mqtt://broker.local:1884\npipeline:\n  workers: 3\nregistry:\n  file: null\n") { path in
            let loaded = try ConfigurationLoader.load(
                file: path, environment: ["WG_MQTT_KEEPALIVE": "50", "WG_PIPELINE_WORKERS": "5"], overrides: [("pipeline.workers", "7")])
            #expect(loaded.configuration.mqtt.keepalive == 50)
            #expect(loaded.configuration.mqtt.broker == BrokerURL(host: "broker.local", port: 1884))
            #expect(loaded.configuration.pipeline.workers == 7)
        }
    }

    @Test("a bad value names the key, the file and line, and what is allowed")
    func badValueNamesKeyAndLine() throws {
        let found = try withFile("mqtt:\n  broker: mqtt://x:1883\n  keepalive: soon\n") { issues(file: $0, overrides: [("registry.file", "null")]) }
        #expect(found.count == 1)
        #expect(found.first?.key == "mqtt.keepalive")
        #expect(found.first?.source.hasSuffix(":3") == true)
        #expect(found.first?.message == "must be a whole number from 5 to 65535, got 'soon'")
    }

    @Test("unknown keys are errors with a suggestion")
    func unknownKey() throws {
        let found = try withFile("mqtt:\n  keepalvie: 30\npipline:\n  workers: 2\n") { issues(file: $0, overrides: [("registry.file", "null")]) }
        #expect(found.map(\.key) == ["mqtt.keepalvie", "pipline"])
        #expect(found.first?.message == "unknown key (did you mean 'mqtt.keepalive'?)")
    }

    @Test("every problem is reported, not just the first", arguments: [
        ("mqtt.broker", "http://x", "unsupported scheme 'http'"),
        ("mqtt.broker", "mqtt://host:99999", "port '99999'"),
        ("mqtt.receiveMaximum", "0", "from 1 to 65535"),
        ("pipeline.maxPayloadBytes", "1.5", "whole number"),
        ("logging.level", "loud", "must be one of trace"),
        ("topics.inboundRoot", "wear+ables", "+"),
        ("mqtt.tls.verifyHostname", "maybe", "true or false"),
        ("metrics.publishInterval", "-1", "from 0.0"),
    ])
    func invalidValues(key: String, value: String, fragment: String) {
        let found = issues(overrides: [(key, value), ("registry.file", "null")])
        #expect(found.count == 1)
        #expect(found.first?.key == key)
        #expect(found.first?.message.contains(fragment) == true, "\(found)")
    }

    @Test("cross-key rules point at the key to change")
    func crossKeyRules() throws {
        let handoff = issues(overrides: [("mqtt.keepalive", "10"), ("pipeline.maxHandoffWait", "5"), ("registry.file", "null")])
        // Both waits block the subscriber: each alone, and their sum, must stay under half the keepalive.
        #expect(handoff.map(\.key) == ["pipeline.maxHandoffWait", "journal.maxWait"])
        let journal = issues(overrides: [("journal.maxWait", "12"), ("registry.file", "null")])
        #expect(journal.map(\.key) == ["journal.maxWait"])
        #expect(journal.first?.message.contains("pipeline.maxHandoffWait") == true)
        // A readable PEM certificate without its key (a non-PEM file would be a second issue).
        let certificate = FileManager.default.temporaryDirectory.appendingPathComponent("gw-\(UUID().uuidString).pem").path
        try "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n".write(toFile: certificate, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: certificate) }
        let tls = issues(overrides: [("mqtt.tls.certFile", certificate), ("registry.file", "null")])
        #expect(tls.map(\.key) == ["mqtt.tls.certFile"])
        #expect(tls.first?.message.contains("go together") == true)
        let missing = issues(overrides: [("registry.file", "/nonexistent/devices.yml")])
        #expect(missing.map(\.key) == ["registry.file"])
        let roots = issues(overrides: [("topics.outboundRoot", "wearables"), ("registry.file", "null")])
        #expect(roots.map(\.key) == ["topics.outboundRoot"])
    }

    @Test("environment names are upper snake case of the key path")
    func environmentNames() {
        let names = Dictionary(uniqueKeysWithValues: GatewayConfiguration.keys.map { ($0.path, $0.environmentName) })
        #expect(names["mqtt.sessionExpiry"] == "WG_MQTT_SESSION_EXPIRY")
        #expect(names["mqtt.tls.caFile"] == "WG_MQTT_TLS_CA_FILE")
        #expect(names["pipeline.maxHandoffWait"] == "WG_PIPELINE_MAX_HANDOFF_WAIT")
        #expect(Set(names.values).count == names.count, "environment names must be unique")
    }

    @Test("the password file's first line becomes the password; unknown WG_ variables warn")
    func passwordFileAndWarnings() throws {
        try withFile("s3cret\nignored\n") { path in
            let loaded = try ConfigurationLoader.load(
                file: nil, environment: ["WG_MQTT_PASSWORD_FILE": path, "WG_NOT_A_KEY": "1"], overrides: [("registry.file", "null")])
            #expect(loaded.configuration.mqtt.password == "s3cret")
            #expect(loaded.warnings == ["environment variable WG_NOT_A_KEY is not a configuration key; ignored"])
        }
    }
}
