import Testing

@testable import TelemetryGateway

/// The `history.*` keys: on with a store, the retention, the families kept, the buffer.
@Suite struct HistoryConfigurationKeysTests {
    private static func load(_ overrides: [(key: String, value: String)], environment: [String: String] = [:]) throws(ConfigurationError) -> GatewayConfiguration {
        try ConfigurationLoader.load(file: nil, environment: environment, overrides: [("registry.file", "null")] + overrides).configuration
    }

    @Test("defaults: on with the recorder's SQLite file, 30 days, the discrete families, 16 MiB")
    func defaults() throws {
        let configuration = try Self.load([])
        #expect(configuration.history.enabled == nil && configuration.historyIsEnabled)
        #expect(configuration.history.retention == 30 * 86_400)
        #expect(configuration.history.bufferBytes == 16 << 20)
        #expect(configuration.history.families.contains("submersion/dive") && configuration.history.families.contains("swing"))
        #expect(!configuration.history.families.contains("headphone/pose"), "head pose (up to 10 Hz) is off by default")
        #expect(!configuration.history.families.contains("submersion/temperature"), "water temperature (per measurement) is off by default")
        #expect(GatewayConfiguration.History.discreteFamilies.isSubset(of: GatewayConfiguration.History.keepableFamilies))
    }

    @Test("auto follows the store: off without recorder.database, on with store.url; explicit values win")
    func auto() throws {
        #expect(try !Self.load([("recorder.database", "null")]).historyIsEnabled)
        #expect(try Self.load([("store.backend", "postgres"), ("store.url", "postgres://g@db/w"), ("recorder.database", "null")]).historyIsEnabled)
        #expect(try !Self.load([("history.enabled", "false")]).historyIsEnabled)
        #expect(try Self.load([], environment: ["WG_HISTORY_ENABLED": "true"]).history.enabled == true)
        #expect(try Self.load([("history.enabled", "auto")]).history.enabled == nil)
    }

    @Test("families are a comma-separated list of outbound leaves")
    func families() throws {
        let configuration = try Self.load([("history.families", "swing, headphone/pose ,submersion/dive")])
        #expect(configuration.history.families == ["swing", "headphone/pose", "submersion/dive"])
    }

    @Test("bad values name the key", arguments: [
        ("history.enabled", "maybe", "history.enabled", "true, false or auto"),
        ("history.retention", "60", "history.retention", "3600"),
        ("history.families", "swing,dead-letter", "history.families", "unknown families dead-letter"),
        ("history.families", "dives", "history.families", "unknown families dives"),
        ("history.bufferBytes", "1000", "history.bufferBytes", "65536"),
    ])
    func invalid(key: String, value: String, reported: String, message: String) {
        do {
            _ = try Self.load([(key, value)])
            Issue.record("\(key)=\(value) was accepted")
        } catch {
            #expect(error.issues.contains { $0.key == reported && $0.message.contains(message) }, "\(error.issues)")
        }
    }

    @Test("history.enabled true without any store is refused, naming the key")
    func enabledNeedsAStore() {
        do {
            _ = try Self.load([("history.enabled", "true"), ("recorder.database", "null")])
            Issue.record("accepted")
        } catch {
            #expect(error.issues.contains { $0.key == "history.enabled" && $0.message.contains("recorder.database") }, "\(error.issues)")
        }
    }
}
