import CoreMetrics
import Logging
import MQTTTransport
import Prometheus
import RecorderStore
import TelemetryCore

/// What the gateway tells operators besides its MQTT events: health and readiness
/// (``RuntimeHealth``), the fleet page's view (``FleetView``), latency histograms, and the
/// broker round-trip probe. The gateway service feeds it through a few calls; the HTTP
/// service reads it.
public final class GatewayOperations: Sendable {
    /// Heartbeats, connection flags and queue loads.
    public let health: RuntimeHealth
    /// The fleet as the published events describe it.
    public let fleet: FleetView
    private let latency: EventLatencyMetrics
    private let access: HTTPAccess
    private let scheme: TopicScheme
    private let probeInterval: Double
    private let logger: Logger
    /// Where derived events' latencies and the probe read the time, and the probe waits.
    private let clock: any GatewayClock

    /// Creates the operations state for a gateway with `configuration`, on `clock`.
    public init(configuration: GatewayConfiguration, metricsFactory: any MetricsFactory, logger: Logger, clock: any GatewayClock) {
        self.clock = clock
        // Seconds since the start on the clock's monotonic side: only differences count.
        let origin = clock.monotonicNow()
        health = RuntimeHealth(stallTimeout: configuration.http.stallTimeout, now: { clock.secondsSince(origin) })
        fleet = FleetView(
            maxBytes: configuration.http.fleetViewBytes, maxLiveClients: configuration.http.maxLiveClients, metricsFactory: metricsFactory)
        latency = EventLatencyMetrics(factory: metricsFactory)
        access = HTTPAccess(tokens: configuration.http.accessTokens, metricsFactory: metricsFactory)
        scheme = configuration.topics.scheme
        probeInterval = configuration.metrics.publishInterval > 0 ? configuration.metrics.publishInterval : 5
        self.logger = logger
    }

    /// A message was handed to the publisher connection.
    public func published(_ message: OutboundMessage) {
        fleet.observe(message)
    }

    /// The messages derived from a frame received at `receivedAt` (Unix seconds) were handed
    /// to the publisher connection: records their latency per family.
    public func derived(_ messages: [OutboundMessage], receivedAt: Double) {
        latency.record(messages, receivedAt: receivedAt, now: clock.wallTime())
    }

    /// Lets readiness see the worker queues and the recorder query queue.
    func watchQueues(_ queues: [HandoffQueue<WorkItem>], queries: HandoffQueue<RecorderRequest>, configuration: GatewayConfiguration) {
        let capacity = configuration.pipeline.queueCapacity
        let queryCapacity = configuration.recorder.queryQueueCapacity
        health.watchQueues {
            queues.enumerated().map { HealthReport.QueueLoad(name: "worker-\($0.offset)", depth: $0.element.depth, capacity: capacity) }
                + [HealthReport.QueueLoad(name: "recorder-queries", depth: queries.depth, capacity: queryCapacity)]
        }
    }

    /// The HTTP endpoints over this state, `prometheus` (nil: `/metrics` is empty) and the
    /// event history's store (nil: the history is off).
    public func endpoints(prometheus: PrometheusCollectorRegistry?, history: (any EventHistoryStoring)? = nil) -> HTTPEndpoints {
        let health = health
        return HTTPEndpoints(
            metrics: { prometheus?.emitToBuffer() ?? [] }, liveness: { health.liveness() }, readiness: { health.readiness() }, fleet: fleet,
            history: history, clock: clock, access: access)
    }

    /// Until cancelled: every `metrics.publishInterval` (5 s when that is 0) publishes a QoS 1
    /// probe on `gateway/probe` and records the time to its PUBACK in
    /// `gateway_mqtt_publish_round_trip_seconds`. A probe outstanding while connected tells
    /// ``RuntimeHealth`` whether the publisher's network thread still completes round trips.
    public func runRoundTripProbe(publisher: any OutboundConnection) async {
        while !Task.isCancelled {
            try? await clock.sleep(for: probeInterval)
            if Task.isCancelled { break }
            var writer = JSONWriter(capacity: 48)
            writer.object { $0.field("date", clock.wallTime()) }
            let message = MQTTMessage(
                .probe, in: scheme, payload: writer.bytes, properties: MQTTProperties(contentType: "application/json", messageExpiryInterval: 10))
            let sentAt = health.currentTime
            health.probe(sentAt: sentAt)
            // The publish is awaited in its own task: a cancelled probe loop must not wait for
            // an acknowledgement that a stopped broker never sends.
            let (outcome, continuation) = AsyncStream.makeStream(of: Bool.self)
            Task {
                let acknowledged = (try? await publisher.publish(message)) != nil
                continuation.yield(acknowledged)
                continuation.finish()
            }
            var iterator = outcome.makeAsyncIterator()
            guard let acknowledged = await iterator.next() else { break }
            health.probe(sentAt: nil)
            if acknowledged {
                latency.roundTrip.recordNanoseconds(Int64((health.currentTime - sentAt) * 1e9))
            } else {
                logger.debug("round-trip probe on \(scheme.probeTopic) was not acknowledged")
            }
        }
        health.probe(sentAt: nil)
    }
}
