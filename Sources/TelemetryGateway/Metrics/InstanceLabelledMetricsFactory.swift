import CoreMetrics

/// Adds `gateway_instance="{cluster.instance}"` to every metric another factory makes, so the
/// series of several instances scraped into one Prometheus (or read from their
/// `gateway/instances/{name}/metrics` topics) stay apart. Not `instance`: Prometheus sets that
/// label on every scraped series itself (the target's address) and would rename ours to
/// `exported_instance`.
struct InstanceLabelledMetricsFactory: MetricsFactory {
    let base: any MetricsFactory
    let instance: String

    private func labelled(_ dimensions: [(String, String)]) -> [(String, String)] {
        [(Self.label, instance)] + dimensions.filter { $0.0 != Self.label }
    }

    /// The label naming the instance.
    static let label = "gateway_instance"

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        base.makeCounter(label: label, dimensions: labelled(dimensions))
    }

    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        base.makeFloatingPointCounter(label: label, dimensions: labelled(dimensions))
    }

    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        base.makeMeter(label: label, dimensions: labelled(dimensions))
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        base.makeRecorder(label: label, dimensions: labelled(dimensions), aggregate: aggregate)
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        base.makeTimer(label: label, dimensions: labelled(dimensions))
    }

    func destroyCounter(_ handler: any CounterHandler) { base.destroyCounter(handler) }
    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) { base.destroyFloatingPointCounter(handler) }
    func destroyMeter(_ handler: any MeterHandler) { base.destroyMeter(handler) }
    func destroyRecorder(_ handler: any RecorderHandler) { base.destroyRecorder(handler) }
    func destroyTimer(_ handler: any TimerHandler) { base.destroyTimer(handler) }
}
