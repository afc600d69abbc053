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
        return GatewayRun(gateway: gateway, collector: collector, observer: observer)
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

    /// Stops the gateway (draining its queues) and waits for its offline status, published
    /// after every derived event on the same connection; returns everything received. The
    /// observer stays connected.
    func stopAndCollect() async throws -> [MQTTMessage] {
        try await gateway.stop()
        return try await collector.wait("gateway/status offline") { messages in
            messages.contains { $0.topic == "gateway/status" && $0.payloadString.contains("\"offline\"") }
        }
    }

    /// Stops the gateway gracefully and disconnects the observer.
    func stop() async throws {
        try await gateway.stop()
        await observer.shutdown()
    }
}
