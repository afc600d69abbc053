import MQTTTransport
import TelemetryCore

/// Reads values out of Prometheus text exposition (what the gateway publishes on
/// `gateway/metrics`).
public struct PrometheusText: Sendable {
    /// The exposition text.
    public let text: String

    /// Wraps exposition text.
    public init(text: String) { self.text = text }

    /// The last exposition among `messages` on `topic`, parsed; nil before the first. The
    /// default topic is the gateway's metrics topic under the default topic scheme
    /// (`gateway/metrics`); pass `configuration.topics.scheme.metricsTopic` for another.
    public static func latest(in messages: [MQTTMessage], topic: String = TopicScheme().metricsTopic) -> PrometheusText? {
        messages.last { $0.topic == topic }.map { PrometheusText(text: $0.payloadString) }
    }

    /// The sum of every sample of `name` whose labels include all of `labels`.
    public func sum(_ name: String, labels: [String: String] = [:]) -> Double {
        var total = 0.0
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            let series = line[..<space]
            let metric: Substring
            var seriesLabels: [String: String] = [:]
            if let brace = series.firstIndex(of: "{") {
                metric = series[..<brace]
                let body = series[series.index(after: brace)..<(series.lastIndex(of: "}") ?? series.endIndex)]
                for pair in body.split(separator: ",") {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    if parts.count == 2 { seriesLabels[String(parts[0])] = String(parts[1].dropFirst().dropLast()) }
                }
            } else {
                metric = series
            }
            guard metric == name, labels.allSatisfy({ seriesLabels[$0.key] == $0.value }) else { continue }
            total += value
        }
        return total
    }
}
