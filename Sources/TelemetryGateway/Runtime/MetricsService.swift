import CoreMetrics
import Foundation
import Locking
import Logging
import MQTTTransport
import Prometheus
import ServiceLifecycle
import TelemetryCore

/// Samples levels (queue depths, buffered bytes, publisher counters) and publishes the
/// Prometheus text of every metric, retained, on `gateway/metrics` every
/// `metrics.publishInterval` seconds; once more after the workers have drained.
struct MetricsService: Service {
    let runtime: GatewayRuntime

    func run() async {
        let interval = runtime.configuration.metrics.publishInterval
        let previous = LockedState(MQTTClientStatistics())
        let process = ProcessMetrics(factory: runtime.metrics.factory)
        // The queues' bound, so an alert can compare gateway_queue_depth with it.
        Gauge(label: "gateway_queue_capacity", factory: runtime.metrics.factory).record(runtime.configuration.pipeline.queueCapacity)
        process.sample()
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: .seconds(interval > 0 ? interval : 1))
                runtime.operations.health.beat("metrics", every: interval > 0 ? interval : 1)
                sample(previous)
                process.sample()
                if interval > 0 { await publish() }
            }
        }
        sample(previous)
        await publish()
    }

    private func sample(_ previous: LockedState<MQTTClientStatistics>) {
        let statistics = runtime.publisher.client.statistics
        let last = previous.withLock { $0 }
        previous.withLock { $0 = runtime.metrics.sample(runtime: runtime, publisher: statistics, previous: last) }
    }

    private func publish() async {
        guard let prometheus = runtime.prometheus, runtime.configuration.metrics.publishInterval > 0 else { return }
        var buffer: [UInt8] = []
        prometheus.emit(into: &buffer)
        do {
            try await runtime.publisher.client.send(
                MQTTMessage(
                    topic: runtime.cluster.map { "\($0.status.topic)/metrics" } ?? runtime.scheme.metricsTopic, payload: buffer, qos: .atLeastOnce, retain: true,
                    properties: MQTTProperties(contentType: "text/plain; version=0.0.4")))
        } catch {
            runtime.logger.debug("could not publish metrics: \(error)")
        }
    }
}
