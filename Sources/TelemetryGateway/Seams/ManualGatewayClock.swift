import Locking

/// A ``GatewayClock`` a test sets: both clocks stand still until ``advance(by:)`` moves them, so
/// a test of time-dependent behaviour (a grace period, a window) states the time it means
/// instead of sleeping for it.
public final class ManualGatewayClock: GatewayClock {
    private let now: LockedState<(wall: Double, monotonic: SuspendingClock.Instant)>

    /// A clock at `wallTime` (seconds since 1970); its monotonic side starts at the machine's now.
    public init(wallTime: Double) {
        now = LockedState((wallTime, SuspendingClock.now))
    }

    public func wallTime() -> Double { now.withLock { $0.wall } }
    public func monotonicNow() -> SuspendingClock.Instant { now.withLock { $0.monotonic } }

    /// Moves both clocks ahead by `seconds`.
    public func advance(by seconds: Double) {
        now.withLock {
            $0.wall += seconds
            $0.monotonic = $0.monotonic + .seconds(seconds)
        }
    }
}
