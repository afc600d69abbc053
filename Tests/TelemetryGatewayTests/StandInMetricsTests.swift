import CoreMetrics
import Prometheus
import Testing

@testable import TelemetryGateway

/// A stand-in records on the process's registry (docs/scale-out.md, *A death*): its series carry
/// the dead instance's name and its adopter's, beside the adopter's own, and its gauges leave the
/// registry when it ends while its counters stay.
@Suite("Stand-in metrics on the process's registry")
struct StandInMetricsTests {
    @Test("the adopter's and the stand-in's series side by side, told apart by their labels; released, the stand-in's gauges go and its counters stay")
    func standInSeriesBesideTheAdopters() {
        let registry = PrometheusCollectorRegistry()
        let process = CatalogMetricsFactory(registry: registry)
        let own = InstanceLabelledMetricsFactory(base: process, instance: "gw-a")
        let standIn = GaugeReleasingMetricsFactory(base: InstanceLabelledMetricsFactory(base: process, instance: "gw-b", standInOf: "gw-a"))

        Counter(label: "gateway_frames_processed_total", factory: own).increment(by: 5)
        Counter(label: "gateway_frames_processed_total", factory: standIn).increment(by: 3)
        Gauge(label: "gateway_queue_depth", dimensions: [("shard", "0")], factory: own).record(2)
        Gauge(label: "gateway_queue_depth", dimensions: [("shard", "0")], factory: standIn).record(7)
        Meter(label: "gateway_mqtt_connected", dimensions: [("connection", "subscriber")], factory: standIn).set(1)

        let before = registry.emitToString()
        #expect(before.contains(#"gateway_frames_processed_total{gateway_instance="gw-a"} 5"#), "\(before)")
        #expect(before.contains(#"gateway_frames_processed_total{gateway_instance="gw-b",gateway_stand_in="gw-a"} 3"#), "\(before)")
        #expect(before.contains(#"gateway_queue_depth{gateway_instance="gw-b",gateway_stand_in="gw-a",shard="0"} 7"#), "\(before)")
        #expect(before.contains(#"gateway_mqtt_connected{gateway_instance="gw-b",gateway_stand_in="gw-a",connection="subscriber"} 1"#), "\(before)")

        standIn.release()
        let after = registry.emitToString()
        #expect(after.contains(#"gateway_frames_processed_total{gateway_instance="gw-b",gateway_stand_in="gw-a"} 3"#), "the stand-in's counter went: \(after)")
        #expect(!after.contains(#"gateway_stand_in="gw-a",shard="0"}"#), "the stand-in's gauge stayed: \(after)")
        #expect(!after.contains(#"gateway_mqtt_connected{gateway_instance="gw-b""#), "the stand-in's meter stayed: \(after)")
        #expect(after.contains(#"gateway_queue_depth{gateway_instance="gw-a",shard="0"} 2"#), "the adopter's own gauge went: \(after)")
    }
}
