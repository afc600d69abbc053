import CoreMetrics
import Logging

/// The log handler swift-otel's diagnostics go through: it forwards every line to the gateway's
/// own handler and counts the spans the exporter gave up on, which swift-otel 1.6 reports only
/// in its log (`gateway_tracing_spans_dropped_total{reason}`):
///
/// - `queueFull`: the batch processor's queue (`OTEL_BSP_MAX_QUEUE_SIZE`, 2048) was full, the
///   warning's `dropped_count`;
/// - `exportFailed`: an export request failed or timed out, its `batch_size`.
///
/// The warnings always reach it, whatever `logging.level` is, so the count does not depend on
/// what is logged; only the lines at or above the gateway's level are forwarded.
struct SpanLossLogHandler: LogHandler {
    /// The gateway's handler, which decides what is written.
    private var inner: any LogHandler
    private let queueFull: Counter
    private let exportFailed: Counter

    /// The log line of swift-otel 1.6's batch span processor when its queue overflowed.
    static let queueFullMessage = "Spans were dropped this iteration because queue was full"
    /// Its log line when an export of a batch failed.
    static let exportFailedMessage = "Failed to export batch."

    init(forwardingTo inner: any LogHandler, factory: any MetricsFactory) {
        self.inner = inner
        queueFull = Counter(label: "gateway_tracing_spans_dropped_total", dimensions: [("reason", "queueFull")], factory: factory)
        exportFailed = Counter(label: "gateway_tracing_spans_dropped_total", dimensions: [("reason", "exportFailed")], factory: factory)
    }

    /// At most `warning`, so the loss reports arrive even when the gateway logs only errors.
    var logLevel: Logger.Level {
        get { min(inner.logLevel, .warning) }
        set { inner.logLevel = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { inner.metadataProvider }
        set { inner.metadataProvider = newValue }
    }

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        if event.level == .warning {
            count(event.message.description, metadata: inner.metadata.merging(event.metadata ?? [:]) { $1 })
        }
        if event.level >= inner.logLevel {
            inner.log(event: event)
        }
    }

    private func count(_ message: String, metadata: Logger.Metadata) {
        switch message {
        case Self.queueFullMessage: queueFull.increment(by: Int64(Self.number(metadata["dropped_count"])))
        case Self.exportFailedMessage: exportFailed.increment(by: Int64(Self.number(metadata["batch_size"])))
        default: break
        }
    }

    /// A metadata value's number; 0 when it is missing or not a number.
    static func number(_ value: Logger.Metadata.Value?) -> Int {
        guard case .string(let text) = value else {
            if case .stringConvertible(let convertible) = value { return Int(convertible.description) ?? 0 }
            return 0
        }
        return Int(text) ?? 0
    }
}
