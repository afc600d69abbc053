import CoreMetrics
import Locking

/// Counters of one label whose dimension values are only known at run time (an error code, a
/// query outcome), created on first use and cached so each series is registered once.
final class DimensionedCounters: Sendable {
    private let label: String
    private let names: [String]
    private let factory: any MetricsFactory
    private let counters = LockedState<[[String]: Counter]>([:])

    /// - Parameters:
    ///   - label: the metric name.
    ///   - names: the dimension names, in order.
    ///   - factory: where the counters are created.
    init(label: String, dimensions names: [String], factory: any MetricsFactory) {
        self.label = label
        self.names = names
        self.factory = factory
    }

    /// The counter of `values` (one per dimension name, same order).
    func callAsFunction(_ values: String...) -> Counter {
        counters.withLock { counters in
            if let counter = counters[values] { return counter }
            let counter = Counter(label: label, dimensions: Array(zip(names, values)), factory: factory)
            counters[values] = counter
            return counter
        }
    }
}
