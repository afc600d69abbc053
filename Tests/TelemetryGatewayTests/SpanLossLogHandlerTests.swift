import Logging
import Locking
import Prometheus
import Testing

@testable import TelemetryGateway

/// swift-otel reports dropped spans only in its log; the handler its diagnostics go through
/// turns those lines into `gateway_tracing_spans_dropped_total{reason}` and forwards the rest.
/// (End to end, with a real exporter whose queue overflows: Tests/TraceExport.)
@Suite struct SpanLossLogHandlerTests {
    /// Records what reaches the gateway's handler.
    final class Recorded: Sendable {
        let lines = LockedState<[String]>([])
    }

    struct RecordingHandler: LogHandler {
        let recorded: Recorded
        var logLevel: Logger.Level
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) { recorded.lines.withLock { $0.append("\(event.level) \(event.message)") } }
    }

    private static func dropped(_ registry: PrometheusCollectorRegistry, reason: String) -> Double? {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        let prefix = #"gateway_tracing_spans_dropped_total{reason="\#(reason)"} "#
        return String(decoding: buffer, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Double($0.dropFirst(prefix.count)) }
    }

    @Test("queue overflows and failed exports are counted by their sizes, other warnings not; lines below the gateway's level are not written")
    func counts() {
        let registry = PrometheusCollectorRegistry()
        let recorded = Recorded()
        var logger = Logger(label: "otel") { _ in
            SpanLossLogHandler(forwardingTo: RecordingHandler(recorded: recorded, logLevel: .info), factory: PrometheusMetricsFactory(registry: registry))
        }
        // swift-otel sets the level it was configured with: the gateway logging errors only.
        logger.logLevel = .error
        #expect(logger.logLevel == .warning, "the loss warnings must still reach the handler")
        logger.warning(Logger.Message(stringLiteral: SpanLossLogHandler.queueFullMessage), metadata: ["queue_size": "4", "dropped_count": "17"])
        logger.warning(Logger.Message(stringLiteral: SpanLossLogHandler.queueFullMessage), metadata: ["dropped_count": "3"])
        var batchLogger = logger
        batchLogger[metadataKey: "batch_size"] = "5"
        batchLogger.warning(Logger.Message(stringLiteral: SpanLossLogHandler.exportFailedMessage))
        logger.warning("Force flush failed.", metadata: ["batch_size": "99"])
        logger.warning(Logger.Message(stringLiteral: SpanLossLogHandler.queueFullMessage), metadata: ["dropped_count": "not a number"])
        logger.error("exporter gone")
        #expect(Self.dropped(registry, reason: "queueFull") == 20)
        #expect(Self.dropped(registry, reason: "exportFailed") == 5)
        // Only the error reaches the gateway's log at level error.
        #expect(recorded.lines.withLock { $0 } == ["error exporter gone"])
    }

    @Test("at the default level the warnings are written as well as counted")
    func forwards() {
        let registry = PrometheusCollectorRegistry()
        let recorded = Recorded()
        let logger = Logger(label: "otel") { _ in
            SpanLossLogHandler(forwardingTo: RecordingHandler(recorded: recorded, logLevel: .info), factory: PrometheusMetricsFactory(registry: registry))
        }
        logger.warning(Logger.Message(stringLiteral: SpanLossLogHandler.queueFullMessage), metadata: ["dropped_count": "2"])
        logger.info("exported")
        logger.debug("not written")
        #expect(Self.dropped(registry, reason: "queueFull") == 2)
        #expect(recorded.lines.withLock { $0 } == ["warning \(SpanLossLogHandler.queueFullMessage)", "info exported"])
    }
}
