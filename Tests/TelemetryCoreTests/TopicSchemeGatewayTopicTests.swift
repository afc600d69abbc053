import Testing

@testable import TelemetryCore

/// The topics and filters TopicScheme builds for the gateway itself, the clustered modes and
/// the tools, and the cluster topics it parses back.
@Suite struct TopicSchemeGatewayTopicTests {
    private static let multiLevel = TopicScheme(inboundRoot: "acme/in", outboundRoot: "acme/out")

    @Test("the default roots are the contract's")
    func defaults() {
        #expect(TopicScheme() == TopicScheme(inboundRoot: "wearables", outboundRoot: "gateway"))
        #expect(TopicScheme.defaultInboundRoot == "wearables" && TopicScheme.defaultOutboundRoot == "gateway")
    }

    @Test("the gateway's own topics, below either root", arguments: [
        (TopicScheme.GatewayTopic.status, "gateway/status", "acme/out/status"),
        (.errors, "gateway/errors", "acme/out/errors"),
        (.metrics, "gateway/metrics", "acme/out/metrics"),
        (.probe, "gateway/probe", "acme/out/probe"),
        (.deadLetter, "gateway/dead-letter", "acme/out/dead-letter"),
        (.instance("gw-a"), "gateway/instances/gw-a", "acme/out/instances/gw-a"),
        (.instanceMetrics("gw-a"), "gateway/instances/gw-a/metrics", "acme/out/instances/gw-a/metrics"),
        (.response("replies/app-1/q7"), "replies/app-1/q7", "replies/app-1/q7"),
    ])
    func gatewayTopics(_ topic: TopicScheme.GatewayTopic, _ byDefault: String, _ belowAcme: String) {
        #expect(TopicScheme().topic(topic) == byDefault)
        #expect(Self.multiLevel.topic(topic) == belowAcme)
    }

    @Test("the named accessors are the same topics")
    func accessors() throws {
        let scheme = Self.multiLevel
        #expect(scheme.statusTopic == scheme.topic(.status))
        #expect(scheme.errorsTopic == scheme.topic(.errors))
        #expect(scheme.metricsTopic == scheme.topic(.metrics))
        #expect(scheme.probeTopic == scheme.topic(.probe))
        #expect(scheme.deadLetterTopic == scheme.topic(.deadLetter))
        #expect(scheme.deadLetterTopic(try #require(DeviceID("w-1"))) == "acme/out/w-1/dead-letter")
    }

    @Test("filters and topics from unchecked levels")
    func filters() {
        let scheme = Self.multiLevel
        #expect(scheme.inboundRootFilter == "acme/in/#")
        #expect(scheme.outboundRootFilter == "acme/out/#")
        #expect(scheme.instancesFilter == "acme/out/instances/+")
        #expect(scheme.deviceOutboundFilter(rawDevice: "w 1") == "acme/out/w 1/#")
        #expect(scheme.outboundTopic(rawDevice: "w-1", path: "depth-state") == "acme/out/w-1/depth-state")
        #expect(scheme.inboundTopic(rawDevice: "bad id", path: "gyro") == "acme/in/bad id/gyro")
        #expect(TopicScheme.sharedFilter(scheme.inboundFilter, group: "gateways") == "$share/gateways/acme/in/+/#")
    }
}
