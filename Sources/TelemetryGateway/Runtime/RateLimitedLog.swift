import Foundation
import Locking
import TelemetryCore

/// Lets a warning through at most once per interval, so an overload logs, not floods.
final class RateLimitedLog: Sendable {
    private let interval: Double
    private let last = LockedState<Double>(-Double.infinity)

    init(interval: Double) {
        self.interval = interval
    }

    /// True when enough time has passed since the last time it returned true.
    func shouldLog(now: Double = Date().timeIntervalSince1970) -> Bool {
        last.withLock { last in
            guard now - last >= interval else { return false }
            last = now
            return true
        }
    }
}
