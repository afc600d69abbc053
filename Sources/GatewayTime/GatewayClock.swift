import Glibc
import Locking

/// Where the runtime reads the time and waits. Timestamps (a frame's `receivedAt`, the date a
/// tick or a policy reload carries, prune cut-offs) come from the wall clock; schedules that must
/// not move when the wall clock is stepped (periods, leases, deadlines) come from the monotonic
/// clock, and so do sleeps. The executable uses ``SystemGatewayClock``; tests pass a
/// ``ManualGatewayClock`` they move, so the runtime's timing logic runs without real time.
public protocol GatewayClock: Sendable {
    /// Seconds since 1970 on the wall clock.
    func wallTime() -> Double
    /// Now on the monotonic clock (`CLOCK_MONOTONIC` on Linux).
    func monotonicNow() -> SuspendingClock.Instant
    /// Suspends the calling task until the monotonic clock reaches `deadline`.
    /// - Throws: `CancellationError` when the task is cancelled first.
    func sleep(until deadline: SuspendingClock.Instant) async throws
}

extension GatewayClock {
    /// Suspends the calling task for `seconds` on the monotonic clock (not at all for 0 or less).
    /// - Throws: `CancellationError` when the task is cancelled first.
    public func sleep(for seconds: Double) async throws {
        try await sleep(until: monotonicNow() + .roundedSeconds(max(0, seconds)))
    }

    /// Seconds on the monotonic clock since `instant`.
    public func secondsSince(_ instant: SuspendingClock.Instant) -> Double {
        (monotonicNow() - instant).inSeconds
    }
}

/// The machine's clocks.
public struct SystemGatewayClock: GatewayClock {
    /// The machine's clocks.
    public init() {}

    public func wallTime() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    public func monotonicNow() -> SuspendingClock.Instant { SuspendingClock.now }

    public func sleep(until deadline: SuspendingClock.Instant) async throws {
        try await Task.sleep(until: deadline, clock: .suspending)
    }
}
