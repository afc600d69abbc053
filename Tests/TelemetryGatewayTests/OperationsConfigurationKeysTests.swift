import Testing

@testable import TelemetryCore
@testable import TelemetryGateway

/// The `http.*`, `deadLetter.*` and `logging.format` keys.
@Suite struct OperationsConfigurationKeysTests {
    private static func load(_ overrides: [(key: String, value: String)], environment: [String: String] = [:]) throws(ConfigurationError) -> GatewayConfiguration {
        try ConfigurationLoader.load(file: nil, environment: environment, overrides: [("registry.file", "null")] + overrides).configuration
    }

    @Test("defaults: HTTP on 127.0.0.1:9464, dead letters off, text logs")
    func defaults() throws {
        let configuration = try Self.load([])
        #expect(configuration.http.listen == HTTPListenAddress(host: "127.0.0.1", port: 9464))
        #expect(configuration.http.stallTimeout == 30)
        #expect(configuration.http.metricsListen == nil)
        #expect(configuration.http.fleetViewBytes == 32 << 20)
        #expect(configuration.http.maxLiveClients == 32)
        #expect(!configuration.deadLetters.enabled && configuration.deadLetters.policy == nil)
        #expect(configuration.logFormat == .text)
    }

    @Test("every key applies from flags and the environment")
    func apply() throws {
        let configuration = try Self.load(
            [("http.listen", "0.0.0.0:8080"), ("deadLetter.enabled", "true"), ("deadLetter.maxPerSecond", "3"), ("http.stallTimeout", "12")],
            environment: ["WG_LOGGING_FORMAT": "JSON"])
        #expect(configuration.http.listen == HTTPListenAddress(host: "0.0.0.0", port: 8080))
        #expect(configuration.deadLetters.policy == DeadLetterPolicy(maxPerSecond: 3))
        #expect(configuration.http.stallTimeout == 12)
        #expect(configuration.logFormat == .json)
        #expect(try Self.load([("http.listen", "off")]).http.listen == nil)
        let http = try Self.load([("http.metricsListen", "0.0.0.0:9465"), ("http.fleetViewBytes", "1048576"), ("http.maxLiveClients", "4")]).http
        #expect(http.metricsListen == HTTPListenAddress(host: "0.0.0.0", port: 9465))
        #expect(http.fleetViewBytes == 1_048_576 && http.maxLiveClients == 4)
        #expect(try Self.load([("http.metricsListen", "127.0.0.1:9465"), ("http.listen", "10.0.0.1:9465")]).http.metricsListen?.port == 9465, "other host, same port")
        #expect(try Self.load([("http.listen", "[::1]:0")]).http.listen == HTTPListenAddress(host: "::1", port: 0))
    }

    @Test("bad values name the key", arguments: [
        ("http.listen", "9464", "must be host:port"), ("http.listen", "localhost:70000", "must be host:port"),
        ("http.metricsListen", "9465", "must be host:port"), ("http.metricsListen", "127.0.0.1:9464", "must differ from http.listen"),
        ("http.fleetViewBytes", "1000", "must be a whole number"), ("http.maxLiveClients", "0", "must be a whole number"),
        ("logging.format", "xml", "must be text or json"), ("deadLetter.maxPerSecond", "0", "must be a whole number"),
    ])
    func invalid(key: String, value: String, message: String) {
        do {
            _ = try Self.load([(key, value)])
            Issue.record("\(key)=\(value) was accepted")
        } catch {
            #expect(error.issues.contains { $0.key == key && $0.message.contains(message) })
        }
    }
}
