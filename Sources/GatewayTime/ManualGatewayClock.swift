import Locking

/// A ``GatewayClock`` a test sets: both clocks stand still until ``advance(by:)`` moves them, so
/// a test of time-dependent behaviour (a grace period, a lease, a window) states the time it
/// means instead of sleeping for it. A task sleeping on it wakes when an advance reaches its
/// deadline (or when it is cancelled).
public final class ManualGatewayClock: GatewayClock {
    private struct Sleeper {
        let deadline: SuspendingClock.Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var wall: Double
        var monotonic: SuspendingClock.Instant
        var sleepers: [Int: Sleeper] = [:]
        var nextSleeper = 0
    }

    private let state: LockedState<State>

    /// A clock at `wallTime` (seconds since 1970); its monotonic side starts at the machine's now.
    public init(wallTime: Double) {
        state = LockedState(State(wall: wallTime, monotonic: SuspendingClock.now))
    }

    public func wallTime() -> Double { state.withLock { $0.wall } }
    public func monotonicNow() -> SuspendingClock.Instant { state.withLock { $0.monotonic } }

    /// How many tasks are sleeping on this clock now; a test waits for its sleepers to be
    /// asleep before advancing.
    public var sleepers: Int { state.withLock { $0.sleepers.count } }

    /// Moves both clocks ahead by `seconds` and wakes every sleeper whose deadline is reached.
    public func advance(by seconds: Double) {
        let woken = state.withLock { state -> [Sleeper] in
            state.wall += seconds
            state.monotonic = state.monotonic + .roundedSeconds(seconds)
            let due = state.sleepers.filter { $0.value.deadline <= state.monotonic }
            for key in due.keys { state.sleepers[key] = nil }
            return Array(due.values)
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }

    /// Suspends until an ``advance(by:)`` reaches `deadline`; at once if it already has.
    public func sleep(until deadline: SuspendingClock.Instant) async throws {
        let key = state.withLock { state -> Int in
            state.nextSleeper += 1
            return state.nextSleeper
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state -> Bool in
                    if Task.isCancelled || deadline <= state.monotonic { return true }
                    state.sleepers[key] = Sleeper(deadline: deadline, continuation: continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: key) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
        try Task.checkCancellation()
    }
}
