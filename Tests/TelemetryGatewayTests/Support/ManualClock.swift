import MQTTTransport
import TelemetryGateway

/// A ``GatewayClock`` the test sets: both clocks stand still until moved.
final class ManualClock: GatewayClock {
    private let now: LockedState<(wall: Double, monotonic: SuspendingClock.Instant)>

    init(wallTime: Double) {
        now = LockedState((wallTime, SuspendingClock.now))
    }

    func wallTime() -> Double { now.withLock { $0.wall } }
    func monotonicNow() -> SuspendingClock.Instant { now.withLock { $0.monotonic } }

    /// Moves both clocks ahead by `seconds`.
    func advance(by seconds: Double) {
        now.withLock {
            $0.wall += seconds
            $0.monotonic = $0.monotonic + .seconds(seconds)
        }
    }
}
