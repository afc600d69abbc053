import CoreMetrics
import Locking

/// A run's metrics on the process's registry, for a run that ends before the process (a
/// stand-in): it remembers the gauges it made, and ``release()`` takes them out of the registry,
/// so a level the run last recorded (a queue depth, partitions held) is not published as current
/// after it ended. Counters and histograms stay: what the run did still counts.
final class GaugeReleasingMetricsFactory: MetricsFactory, Sendable {
    private let base: any MetricsFactory
    private let gauges = LockedState<(recorders: [any RecorderHandler], meters: [any MeterHandler])>(([], []))

    /// Records through `base`.
    init(base: any MetricsFactory) {
        self.base = base
    }

    /// Removes every gauge made so far from the registry.
    func release() {
        let (recorders, meters) = gauges.withLock { gauges in
            defer { gauges = ([], []) }
            return gauges
        }
        for recorder in recorders { base.destroyRecorder(recorder) }
        for meter in meters { base.destroyMeter(meter) }
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        base.makeCounter(label: label, dimensions: dimensions)
    }

    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        base.makeFloatingPointCounter(label: label, dimensions: dimensions)
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        let handler = base.makeRecorder(label: label, dimensions: dimensions, aggregate: aggregate)
        // Not aggregating: a gauge.
        if !aggregate { gauges.withLock { $0.recorders.append(handler) } }
        return handler
    }

    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        let handler = base.makeMeter(label: label, dimensions: dimensions)
        gauges.withLock { $0.meters.append(handler) }
        return handler
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        base.makeTimer(label: label, dimensions: dimensions)
    }

    func destroyCounter(_ handler: any CounterHandler) { base.destroyCounter(handler) }
    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) { base.destroyFloatingPointCounter(handler) }
    func destroyMeter(_ handler: any MeterHandler) { base.destroyMeter(handler) }
    func destroyRecorder(_ handler: any RecorderHandler) { base.destroyRecorder(handler) }
    func destroyTimer(_ handler: any TimerHandler) { base.destroyTimer(handler) }
}
