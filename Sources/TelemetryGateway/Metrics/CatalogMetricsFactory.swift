import CoreMetrics
import Prometheus

/// The gateway's metrics factory: families on a Prometheus registry, each made with its
/// `# HELP` text from ``MetricCatalog``, as swift-prometheus' own factory makes them otherwise
/// (the same types and its default buckets). Every family the gateway records goes through this
/// one factory, so no name is ever registered with two help texts (the registry would stop the
/// process).
public struct CatalogMetricsFactory: MetricsFactory {
    /// Where the families live (`/metrics`, `gateway/metrics`).
    public let registry: PrometheusCollectorRegistry
    /// swift-prometheus' factory on the same registry: its default buckets, and the destroy
    /// calls, which only unregister.
    private let plain: PrometheusMetricsFactory

    /// A factory over `registry`.
    public init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        plain = PrometheusMetricsFactory(registry: registry)
    }

    private func descriptor(_ label: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: label, unitName: "", helpText: MetricCatalog.help(for: label))
    }

    public func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    public func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        registry.makeCounter(descriptor: descriptor(label), labels: dimensions)
    }

    public func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        guard aggregate else { return registry.makeGauge(descriptor: descriptor(label), labels: dimensions) }
        return registry.makeValueHistogram(descriptor: descriptor(label), labels: dimensions, buckets: plain.defaultValueHistogramBuckets)
    }

    public func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        registry.makeGauge(descriptor: descriptor(label), labels: dimensions)
    }

    public func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        registry.makeDurationHistogram(descriptor: descriptor(label), labels: dimensions, buckets: plain.defaultDurationHistogramBuckets)
    }

    public func destroyCounter(_ handler: any CounterHandler) { plain.destroyCounter(handler) }
    public func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) { plain.destroyFloatingPointCounter(handler) }
    public func destroyRecorder(_ handler: any RecorderHandler) { plain.destroyRecorder(handler) }
    public func destroyMeter(_ handler: any MeterHandler) { plain.destroyMeter(handler) }
    public func destroyTimer(_ handler: any TimerHandler) { plain.destroyTimer(handler) }
}
