import Foundation
import Logging
import MQTTTransport
import TelemetryCore
import WearableGatewayTesting

/// `publish --expect`: watches one device's derived topics and the gateway's retained status and
/// metrics, so the output can be compared once the gateway processed everything published.
struct GatewayExpectation {
    private let client: MQTTClient
    private let collector = MessageCollector()
    private let metricsTopic: String
    private let baseline: Double
    private static let processed = "gateway_frames_processed_total"

    /// Subscribes before anything is published; waits until the gateway is online (it says so
    /// once its inbound connection has subscribed, so what is published next is heard) and reads
    /// its current frame count.
    init(connection: ConnectionOptions, outboundRoot: String, device: String, logger: Logger) async throws {
        let scheme = TopicScheme(outboundRoot: outboundRoot)
        metricsTopic = scheme.metricsTopic
        client = try MQTTClient(
            configuration: try connection.configuration(clientID: "wearable-sim-expect-\(UUID().uuidString.prefix(6))", will: nil),
            logger: logger, onMessage: collector.handler)
        client.start()
        try await client.waitUntilConnected(timeout: 30)
        let statusTopic = scheme.statusTopic
        try await client.subscribe([scheme.deviceOutboundFilter(rawDevice: device), metricsTopic, statusTopic], qos: .atLeastOnce)
        let topic = metricsTopic
        let first = try await collector.wait(
            timeout: 30, "the gateway online on \(statusTopic) and its retained \(topic) (is the gateway running, with metrics.publishInterval > 0?)"
        ) { messages in
            messages.contains { $0.topic == topic } && messages.last { $0.topic == statusTopic }?.payloadString.contains(#""state":"online""#) == true
        }
        baseline = Self.count(in: first, topic: topic)
    }

    /// Waits until the gateway's metrics show `frames` more processed frames than at the
    /// start (derived events are handed to its publisher before the count grows, and published
    /// before the next metrics on the same connection), then returns the device's messages
    /// published during the run.
    func receivedOnceProcessed(frames: Int, timeout: Double) async throws -> [MQTTMessage] {
        let (topic, target) = (metricsTopic, baseline + Double(frames))
        let received = try await collector.wait(timeout: timeout, "the gateway to process \(frames) frames") { messages in
            Self.count(in: messages, topic: topic) >= target
        }
        // Retained messages from the store (an earlier run's last depth state) are not this run's.
        return received.filter { $0.topic != topic && !$0.retain }
    }

    func shutdown() async { await client.shutdown() }

    private static func count(in messages: [MQTTMessage], topic: String) -> Double {
        PrometheusText.latest(in: messages, topic: topic)?.sum(processed) ?? -1
    }
}
