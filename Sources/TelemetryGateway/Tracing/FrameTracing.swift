import CoreMetrics
import Foundation
import Logging
import OTel
import ServiceLifecycle
import TelemetryCore
import Tracing

/// The OpenTelemetry spans of processed frames (`tracing.*`, docs/operations.md "Traces"): one
/// span per frame a worker processes, a child of the frame's W3C `traceparent` when it has
/// one (extracted by swift-otel's W3C propagator), whose own context the frame's messages
/// carry instead, so a consumer continues the trace from the gateway's span.
///
/// Exists only while export is on (``start(configuration:logger:metricsFactory:clock:environment:)`` returns nil
/// otherwise): with it off, a worker's only cost is one nil check per frame.
struct FrameTracing: Sendable {
    /// The tracer spans are started from: swift-otel's, exporting over OTLP/HTTP.
    private let tracer: any Tracer
    /// Where span ends are read (the frame's start is its `receivedAt`).
    private let clock: any GatewayClock
    /// The run whose frames these are, clustered (a process's tracer serves its own run and its
    /// stand-ins): `gateway.instance`, and `gateway.stand_in` (the adopter) for a stand-in.
    private var instance: String?
    private var standInOf: String?

    init(tracer: any Tracer, clock: any GatewayClock) {
        self.tracer = tracer
        self.clock = clock
    }

    /// The same tracer for the frames of one run: clustered, its spans name the run's instance,
    /// and a stand-in's its adopter.
    func forRun(instance: String?, standInOf: String?) -> FrameTracing {
        var tracing = self
        tracing.instance = instance
        tracing.standInOf = standInOf
        return tracing
    }

    /// The tracer and the service that batches and exports its spans (it flushes them at
    /// shutdown), or nil when `tracing.otlpEndpoint` is off: then nothing of swift-otel runs.
    /// - Throws: ``GatewayStartError`` naming `tracing.otlpEndpoint` when swift-otel refuses
    ///   the settings (e.g. an `OTEL_*` variable asks for an exporter this build lacks).
    static func start(
        configuration: GatewayConfiguration, logger: Logger, metricsFactory: any MetricsFactory, clock: any GatewayClock,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> (tracer: FrameTracing, exporter: any Service)? {
        guard let url = configuration.tracing.tracesURL else { return nil }
        if let problem = unsupportedProtocol(in: environment) {
            throw GatewayStartError("tracing.otlpEndpoint: \(problem)")
        }
        var otel = OTel.Configuration.default
        otel.serviceName = configuration.tracing.serviceName
        otel.resourceAttributes["service.version"] = ProductVersion.current
        if configuration.cluster.isClustered { otel.resourceAttributes["service.instance.id"] = configuration.cluster.instanceName }
        // Through a handler that counts the spans swift-otel drops (it reports them only in its log).
        otel.diagnosticLogger = .custom(
            Logger(label: logger.label) { _ in SpanLossLogHandler(forwardingTo: logger.handler, factory: metricsFactory) })
        otel.diagnosticLogLevel = diagnosticLevel(logger.logLevel)
        otel.propagators = [.traceContext]
        otel.logs.enabled = false
        otel.metrics.enabled = false
        otel.traces.enabled = true
        // Parent-based: a frame's traceparent decides for its span; the ratio for the rest.
        otel.traces.sampler = .parentBasedTraceIDRatio(ratio: configuration.tracing.sampleRatio) ?? .parentBasedAlwaysOn
        otel.traces.exporter = .otlp
        otel.traces.otlpExporter.endpoint = url
        otel.traces.otlpExporter.protocol = .httpProtobuf
        // An unreachable receiver costs a shutdown at most this long (before the watchdog at
        // 2 × pipeline.drainTimeout); swift-otel's default of 30 s would reach it.
        otel.traces.otlpExporter.timeout = exportTimeout
        otel.traces.batchSpanProcessor.exportTimeout = exportTimeout
        do {
            let backend = try OTel.makeTracingBackend(configuration: otel)
            logger.info("tracing: exporting frame spans to \(url) as \(configuration.tracing.serviceName), sample ratio \(configuration.tracing.sampleRatio)")
            return (FrameTracing(tracer: backend.factory, clock: clock), backend.service)
        } catch {
            throw GatewayStartError("tracing.otlpEndpoint: cannot start the OpenTelemetry exporter: \(error)")
        }
    }

    /// What is wrong with the OTLP protocol the `OTEL_*` variables ask for, or nil: swift-otel
    /// lets them override the configured http/protobuf and traps on gRPC, which this build
    /// leaves out (the `OTLPHTTP` trait only).
    static func unsupportedProtocol(in environment: [String: String]) -> String? {
        let name = environment["OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"] != nil ? "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL" : "OTEL_EXPORTER_OTLP_PROTOCOL"
        guard let value = environment[name], value == "grpc" else { return nil }
        return "\(name)=\(value) asks for OTLP/gRPC, which this build does not include; use http/protobuf (an OTLP/HTTP receiver, port 4318)"
    }

    /// How long one export (and the final flush) may take.
    static let exportTimeout = Duration.seconds(5)

    /// Starts the span of `frame` (routed to `topic`), at its arrival.
    func begin(_ frame: InboundFrame, topic: InboundTopic) -> FrameSpan {
        var context = InstrumentationContext.topLevel
        if let parent = frame.traceParent {
            tracer.extract([TraceParent.propertyName: parent.value], into: &context, using: TraceHeaders())
        }
        let name: String
        switch topic {
        case .device(_, let stream): name = "frame \(stream.rawValue)"
        case .invalid: name = "frame (invalid topic)"
        }
        let span = tracer.startSpan(name, context: context, ofKind: .consumer, at: Self.instant(frame.receivedAt))
        var headers: [String: String] = [:]
        tracer.inject(span.context, into: &headers, using: TraceHeaders())
        span.updateAttributes { attributes in
            attributes["messaging.system"] = "mqtt"
            attributes["messaging.operation.type"] = "process"
            attributes["messaging.message.body.size"] = frame.payload.count
            if let instance { attributes["gateway.instance"] = instance }
            if let standInOf { attributes["gateway.stand_in"] = standInOf }
            if case .device(let device, let stream) = topic {
                attributes["messaging.destination.name"] = frame.topic
                attributes["wearable.device.id"] = device.rawValue
                attributes["wearable.stream"] = stream.rawValue
            }
        }
        return FrameSpan(span: span, traceParent: headers[TraceParent.propertyName].flatMap(TraceParent.init), clock: clock)
    }

    /// A wall-clock time (Unix epoch seconds, the gateway clock's) as a tracer instant.
    static func instant(_ seconds: Double) -> DefaultTracerClock.Timestamp {
        DefaultTracerClock.Timestamp(nanosecondsSinceEpoch: UInt64(max(0, seconds * 1e9)))
    }

    private static func diagnosticLevel(_ level: Logger.Level) -> OTel.Configuration.LogLevel {
        switch level {
        case .trace: .trace
        case .debug: .debug
        case .info, .notice: .info
        case .warning: .warning
        case .error, .critical: .error
        }
    }
}

/// Trace context headers in a dictionary: what the propagator reads a frame's `traceparent`
/// from and writes the span's into.
private struct TraceHeaders: Extractor, Injector {
    func extract(key: String, from carrier: [String: String]) -> String? { carrier[key] }
    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) { carrier[key] = value }
}
