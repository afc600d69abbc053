import Testing

@testable import TelemetryCore
@testable import TelemetryGateway

/// The default roots are spelled once (``TopicScheme``); configuration and its key table use them.
@Suite struct TopicDefaultsTests {
    @Test("the configuration's default roots are the scheme's")
    func configurationDefaults() throws {
        #expect(GatewayConfiguration().topics.scheme == TopicScheme())
        let keys = GatewayConfiguration.keys
        #expect(keys.first { $0.path == "topics.inboundRoot" }?.defaultValue == TopicScheme.defaultInboundRoot)
        #expect(keys.first { $0.path == "topics.outboundRoot" }?.defaultValue == TopicScheme.defaultOutboundRoot)
    }

    @Test("the configured roots make the scheme")
    func configuredScheme() {
        var topics = GatewayConfiguration.Topics()
        topics.inboundRoot = "acme/in"
        topics.outboundRoot = "acme/out"
        #expect(topics.scheme == TopicScheme(inboundRoot: "acme/in", outboundRoot: "acme/out"))
    }
}
