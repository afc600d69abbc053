import Foundation
import Locking
import MQTTTransport
import TelemetryCore

#if canImport(Glibc)
import Glibc
#endif

/// The time budget of a graceful shutdown: it starts when the subscriber stops, the workers
/// may drain for `pipeline.drainTimeout`, and everything (publish acknowledgements included)
/// must be over within twice that, whatever the broker does.
final class ShutdownDeadline: Sendable {
    /// Seconds reserved at the end for the normal DISCONNECT of the publisher.
    static let disconnectAllowance = 2.5

    let drainTimeout: Double
    /// Where the budget is counted (monotonic side).
    private let clock: any GatewayClock
    private let startedAt = LockedState<SuspendingClock.Instant?>(nil)

    init(drainTimeout: Double, clock: any GatewayClock) {
        self.drainTimeout = drainTimeout
        self.clock = clock
    }

    /// Marks the start of the shutdown (first call wins).
    /// - Returns: whether this call started it.
    @discardableResult
    func start() -> Bool {
        let now = clock.monotonicNow()
        return startedAt.withLock {
            guard $0 == nil else { return false }
            $0 = now
            return true
        }
    }

    /// Whether the shutdown has started.
    var hasStarted: Bool { startedAt.withLock { $0 != nil } }

    /// Seconds left until the workers must have drained.
    var drainRemaining: Double { remaining(until: drainTimeout) }

    /// Seconds left for the final publishes and their acknowledgements.
    var flushRemaining: Double { max(0.2, remaining(until: 2 * drainTimeout - Self.disconnectAllowance)) }

    private func remaining(until offset: Double) -> Double {
        guard let start = startedAt.withLock({ $0 }) else { return offset }
        return max(0, offset - clock.secondsSince(start))
    }

    /// Ends the process with `code` if it is still running `2 × drainTimeout` after the shutdown
    /// started: the last guarantee that SIGTERM ends the gateway in bounded time (the executable
    /// arms it; in-process tests do not).
    func armProcessWatchdog(exitCode: Int32, log: @escaping @Sendable () -> Void) {
        let limit = 2 * drainTimeout
        // Real time on a thread of its own, not the gateway clock: the last guarantee must hold
        // even when the task pool is stuck.
        let thread = Thread {
            CurrentThread.setName("shutdown-wd")
            Thread.sleep(forTimeInterval: limit)
            log()
            _exit(exitCode)
        }
        thread.start()
    }
}
