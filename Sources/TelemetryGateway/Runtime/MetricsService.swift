import GatewayJournal
import CoreMetrics
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
    /// The registry rendered on the topic; nil publishes nothing.
    let prometheus: PrometheusCollectorRegistry?
    /// Seconds between publishes (`metrics.publishInterval`; 0: only the final one is skipped too).
    let interval: Double
    /// Where the metrics go (retained): `metrics`, or the instance's own in the clustered modes.
    let topic: TopicScheme.GatewayTopic
    /// Whether it samples the process (CPU, memory): the process's own run does, a stand-in
    /// (another run in the same process) does not.
    let samplesProcess: Bool
    let scheme: TopicScheme
    /// The publishing connection (its counters are sampled too).
    let connection: any OutboundConnection
    /// The subscribe-only connection's counters (sampled too).
    let subscriber: SubscriberStatistics
    let metrics: GatewayMetrics
    /// Sampled levels: queue depths, buffered bytes, the journal's use.
    let queues: [HandoffQueue<WorkItem>]
    let budget: BufferBudget
    let journal: InboundJournal?
    /// The queues' bound (`pipeline.queueCapacity`).
    let queueCapacity: Int
    let health: RuntimeHealth
    /// Where the interval is waited for.
    let clock: any GatewayClock
    let logger: Logger

    func run() async {
        let previous = LockedState((publisher: MQTTClientStatistics(), subscriber: MQTTClientStatistics()))
        let process = samplesProcess ? ProcessMetrics(factory: metrics.factory) : nil
        // The queues' bound, so an alert can compare gateway_queue_depth with it.
        Gauge(label: "gateway_queue_capacity", factory: metrics.factory).record(queueCapacity)
        process?.sample()
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await clock.sleep(for: interval > 0 ? interval : 1)
                health.beat("metrics", every: interval > 0 ? interval : 1)
                sample(previous)
                process?.sample()
                if interval > 0 { await publish() }
            }
        }
        sample(previous)
        await publish()
    }

    private func sample(_ previous: LockedState<(publisher: MQTTClientStatistics, subscriber: MQTTClientStatistics)>) {
        let (publisher, subscriber) = (connection.statistics, self.subscriber.current)
        let last = previous.withLock { $0 }
        let sampled = (
            publisher: metrics.sample(queues: queues, budget: budget, journal: journal, publisher: publisher, previous: last.publisher),
            subscriber: metrics.sample(subscriber: subscriber, previous: last.subscriber)
        )
        previous.withLock { $0 = sampled }
    }

    private func publish() async {
        guard let prometheus, interval > 0 else { return }
        var buffer: [UInt8] = []
        prometheus.emit(into: &buffer)
        do {
            try await connection.send(
                MQTTMessage(
                    topic, in: scheme, payload: buffer,
                    properties: MQTTProperties(contentType: "text/plain; version=0.0.4")))
        } catch {
            logger.debug("could not publish metrics: \(error)")
        }
    }
}
