import Glibc

/// Where the runtime reads the time. Timestamps (a frame's `receivedAt`, the date a tick or a
/// policy reload carries, prune cut-offs) come from the wall clock; schedules that must not move
/// when the wall clock is stepped come from the monotonic clock. The executable uses
/// ``SystemGatewayClock``; tests pass a clock they set, so the runtime's logic runs without
/// real time.
public protocol GatewayClock: Sendable {
    /// Seconds since 1970 on the wall clock.
    func wallTime() -> Double
    /// Now on the monotonic clock (`CLOCK_MONOTONIC` on Linux).
    func monotonicNow() -> SuspendingClock.Instant
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
}
