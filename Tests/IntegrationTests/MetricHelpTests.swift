import BrokerTestSupport
import Foundation
import MQTTTransport
import TelemetryCore
import TelemetryGateway
import Testing
import WearableGatewayTesting

/// What a running gateway exports: every family with a `# HELP` line from the metric catalog.
@Suite("Metrics on gateway/metrics carry their help")
struct MetricHelpTests {
    @Test("after frames of every kind, every exported family has its catalog help and type")
    func everyFamilyHasHelp() async throws {
        let broker = try await TestBroker.started()
        let run = try await GatewayRun.start(broker) { $0.metrics.publishInterval = 0.2 }
        // A valid frame and a rejected one, so the lazily made families are exported too.
        try await run.observer.send(MQTTMessage(topic: "wearables/help-1/status", string: #"{"state":"online","date":1800000000}"#))
        try await run.observer.send(MQTTMessage(topic: "wearables/help-1/status", string: "not json"))
        let messages = try await run.waitForMetric("gateway_frames_rejected_total", atLeast: 1, timeout: 30)
        let text = try #require(PrometheusText.latest(in: messages, topic: run.configuration.topics.scheme.metricsTopic))
        #expect(text.families.count > 80)
        for name in text.families.sorted() {
            #expect(text.help[name] != nil && text.help[name] != MetricCatalog.missingHelp, "\(name) has no help")
            #expect(text.types[name] == MetricCatalog.byName[name]?.kind.rawValue, "\(name)")
        }
        try await run.stop()
    }
}
