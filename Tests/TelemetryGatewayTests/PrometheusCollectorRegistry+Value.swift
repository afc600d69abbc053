import Prometheus

extension PrometheusCollectorRegistry {
    /// The value of the unlabelled metric `name` as the registry would expose it now; nil when
    /// it has not been created.
    func value(of name: String) -> Double? {
        var buffer: [UInt8] = []
        emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix(name + " ") }
            .flatMap { Double($0.dropFirst(name.count + 1)) }
    }
}
