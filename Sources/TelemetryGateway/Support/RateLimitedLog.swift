import Locking

/// Lets a warning through at most once per interval, so an overload logs, not floods.
///
/// The interval is measured on the gateway clock's monotonic side: a step of the wall clock
/// neither silences the log for the size of the step nor lets a flood through.
final class RateLimitedLog: Sendable {
    private let interval: Duration
    private let clock: any GatewayClock
    private let last = LockedState<SuspendingClock.Instant?>(nil)

    /// A log that lets one warning through per `interval` seconds of `clock`.
    init(interval: Double, clock: any GatewayClock) {
        self.interval = .seconds(interval)
        self.clock = clock
    }

    /// True when enough time has passed since the last time it returned true.
    func shouldLog() -> Bool {
        let now = clock.monotonicNow()
        return last.withLock { last in
            if let previous = last, now - previous < interval { return false }
            last = now
            return true
        }
    }
}
