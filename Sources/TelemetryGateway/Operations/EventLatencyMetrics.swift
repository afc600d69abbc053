import CoreMetrics
import Metrics
import TelemetryCore

/// Latency histograms of the data path (seconds; Prometheus histograms through the metrics
/// factory):
/// - `gateway_event_latency_seconds{family}`: a frame's arrival (the subscriber's callback)
///   to each event derived from it being handed to the publisher connection, per family;
/// - `gateway_mqtt_publish_round_trip_seconds`: a QoS 1 PUBLISH to its PUBACK on the publisher
///   connection (the round-trip probe).
final class EventLatencyMetrics: Sendable {
    private let perFamily: [EventFamily: Metrics.Timer]
    let roundTrip: Metrics.Timer

    init(factory: any MetricsFactory) {
        perFamily = Dictionary(
            uniqueKeysWithValues: EventFamily.allCases.map {
                ($0, Metrics.Timer(label: "gateway_event_latency_seconds", dimensions: [("family", $0.rawValue)], factory: factory))
            })
        roundTrip = Metrics.Timer(label: "gateway_mqtt_publish_round_trip_seconds", factory: factory)
    }

    /// Records, for each message derived from a frame received at `receivedAt` (Unix seconds),
    /// the time until now. Rejection reports and dead letters are not derived events.
    func record(_ messages: [OutboundMessage], receivedAt: Double, now: Double) {
        let seconds = max(0, now - receivedAt)
        for message in messages {
            guard message.device != nil, let family = message.leaf?.family, family != .errors, family != .deadLetter else { continue }
            perFamily[family]?.recordNanoseconds(Int64(seconds * 1e9))
        }
    }
}
