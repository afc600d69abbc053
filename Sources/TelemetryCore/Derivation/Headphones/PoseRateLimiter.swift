/// Lets at most one pose through per `1 / rate` seconds of sample time.
///
/// Sample time (not the gateway clock) keeps the output deterministic: the same samples give
/// the same poses however fast they arrive. A sample passes when no sample passed yet or at
/// least `1 / rate` s (less 1 µs for timestamp rounding) passed since the last one that did;
/// a sample older than that one never passes. At 25 Hz input and 10 Hz this is every third
/// sample (8.3 Hz): the limit is an upper bound, never exceeded.
public struct PoseRateLimiter: Sendable, Codable {
    /// Seconds between passing samples, `1 / rate`.
    public let interval: Double
    /// The timestamp of the last sample that passed.
    public private(set) var lastPassed: Double?

    /// Creates a limiter.
    /// - Parameter rate: the most samples per second, > 0.
    public init(rate: Double) {
        interval = 1 / rate
    }

    /// Whether a sample with this timestamp passes; records it if so.
    public mutating func admit(_ timestamp: Double) -> Bool {
        if let lastPassed, timestamp - lastPassed < interval - HeadphoneConnectionTracker.timestampTolerance { return false }
        lastPassed = timestamp
        return true
    }

    /// Forgets the last passing sample, so the next one passes.
    public mutating func reset() {
        lastPassed = nil
    }
}
