import Locking

/// Lets a warning through at most once per interval, so an overload logs, not floods.
///
/// The interval is measured on the monotonic clock: a step of the wall clock neither silences
/// the log for the size of the step nor lets a flood through.
final class RateLimitedLog: Sendable {
    private let interval: Duration
    private let last = LockedState<ContinuousClock.Instant?>(nil)

    /// A log that lets one warning through per `interval` seconds.
    init(interval: Double) {
        self.interval = .seconds(interval)
    }

    /// True when enough time has passed since the last time it returned true.
    func shouldLog(at now: ContinuousClock.Instant = ContinuousClock.now) -> Bool {
        last.withLock { last in
            if let previous = last, now - previous < interval { return false }
            last = now
            return true
        }
    }
}
