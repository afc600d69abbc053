import Foundation
import BrokerTestSupport
import MQTTTransport
import TelemetryGateway

/// An in-process gateway on a test broker plus an observer subscribed to everything it
/// publishes, started and announced online: the set-up every end-to-end test shares.
struct GatewayRun {
    let gateway: GatewayHarness
    let collector: MessageCollector
    let observer: MQTTClient

    /// Starts the gateway with `configuration` and returns once `gateway/status` arrived.
    static func start(_ broker: TestBroker, configuration: GatewayConfiguration) async throws -> GatewayRun {
        let gateway = try GatewayHarness(configuration: configuration)
        gateway.start()
        let collector = MessageCollector()
        let observer = try await TestClients.connected(try TestClients.configuration(broker), onMessage: collector.handler)
        try await observer.subscribe(["gateway/#"], qos: .atLeastOnce)
        try await collector.wait("gateway online") { $0.contains { $0.topic == "gateway/status" } }
        try await waitUntilProcessing(broker)
        return GatewayRun(gateway: gateway, collector: collector, observer: observer)
    }

    /// Returns once a gateway on `broker` processes frames: a probe device's status is published
    /// (again, until answered) and its `gateway/{id}/connection` awaited. `gateway/status` online
    /// comes from the publisher, which may connect before the subscriber has subscribed, and the
    /// broker drops frames nobody subscribed to.
    static func waitUntilProcessing(_ broker: TestBroker, probe: String = "probe-\(UUID().uuidString.prefix(6))") async throws {
        let answers = MessageCollector()
        let client = try await TestClients.connected(try TestClients.configuration(broker), onMessage: answers.handler)
        try await client.subscribe(["gateway/\(probe)/connection"], qos: .atLeastOnce)
        for attempt in 0..<40 {
            try await client.publish(MQTTMessage(topic: "wearables/\(probe)/status", string: #"{"state":"\#(attempt % 2 == 0 ? "online" : "offline")"}"#))
            if (try? await answers.wait(timeout: 0.5, "probe answered") { !$0.isEmpty }) != nil {
                await client.shutdown()
                return
            }
        }
        await client.shutdown()
        throw TestFailure("the gateway never processed a probe frame")
    }

    /// Starts the gateway with the test defaults of ``GatewayHarness/configuration(broker:clientID:)``.
    static func start(_ broker: TestBroker) async throws -> GatewayRun {
        try await start(broker, configuration: try GatewayHarness.configuration(broker: broker))
    }

    /// Waits until the gateway's published metrics show `name` (summed over series matching
    /// `labels`) at `atLeast` or more; returns everything received so far.
    @discardableResult
    func waitForMetric(_ name: String, labels: [String: String] = [:], atLeast target: Double, timeout: Double = 60) async throws
        -> [MQTTMessage]
    {
        try await collector.wait(timeout: timeout, "\(name)\(labels.isEmpty ? "" : "\(labels)") to reach \(target)") { messages in
            guard let metrics = messages.last(where: { $0.topic == "gateway/metrics" }) else { return false }
            return PrometheusText(text: metrics.payloadString).sum(name, labels: labels) >= target
        }
    }

    /// Stops the gateway gracefully and disconnects the observer.
    func stop() async throws {
        try await gateway.stop()
        await observer.shutdown()
    }
}
