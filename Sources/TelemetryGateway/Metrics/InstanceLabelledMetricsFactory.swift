import CoreMetrics

/// Adds `gateway_instance="{cluster.instance}"` to every metric another factory makes, so the
/// series of several instances scraped into one Prometheus (or read from their
/// `gateway/instances/{name}/metrics` topics) stay apart. Not `instance`: Prometheus sets that
/// label on every scraped series itself (the target's address) and would rename ours to
/// `exported_instance`.
///
/// A stand-in's series also carry `gateway_stand_in="{adopter}"`: they live in the adopter's
/// registry, beside its own, under the dead instance's name.
struct InstanceLabelledMetricsFactory: MetricsFactory {
    let base: any MetricsFactory
    let instance: String
    /// The instance whose process runs this stand-in, or nil for an instance's own run.
    var standInOf: String? = nil

    private func labelled(_ dimensions: [(String, String)]) -> [(String, String)] {
        let own = [(Self.label, instance)] + (standInOf.map { [(Self.standInLabel, $0)] } ?? [])
        return own + dimensions.filter { $0.0 != Self.label && $0.0 != Self.standInLabel }
    }

    /// The label naming the instance.
    static let label = "gateway_instance"
    /// The label naming a stand-in's adopter.
    static let standInLabel = "gateway_stand_in"

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
