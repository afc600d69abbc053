import Locking

/// State that threads change (an MQTT handler, a reader thread) and tests wait on: every change
/// wakes the waiters, which check their condition again until it holds or their timeout passes.
///
/// Timeouts count on the monotonic clock, so a step of the system clock during a wait neither
/// ends it early nor stretches it; async waits block a thread of their own, never Swift's
/// cooperative pool.
public final class WatchedState<State: Sendable>: @unchecked Sendable {
    private let condition = MonotonicCondition()
    private var state: State

    /// Creates the watched state with its initial value.
    public init(_ initial: State) {
        state = initial
    }

    /// The current value.
    public var value: State { condition.withLock { state } }

    /// Changes the state and wakes every waiter.
    @discardableResult
    public func update<Result>(_ change: (inout State) throws -> Result) rethrows -> Result {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return try change(&state)
    }

    /// Blocks the calling thread until `check` returns a value or `timeout` seconds pass (nil:
    /// however long it takes).
    /// - Returns: what `check` returned, or nil on timeout.
    public func blockingWait<Value>(timeout: Double?, until check: (State) -> Value?) -> Value? {
        let deadline = timeout.map { SuspendingClock.now + .seconds(max(0, $0)) }
        return condition.withLock {
            while true {
                if let value = check(state) { return value }
                if let deadline {
                    if !condition.wait(until: deadline) { return check(state) }
                } else {
                    condition.wait()
                }
            }
        }
    }

    /// Waits, off the cooperative pool, until `check` returns a value or `timeout` seconds pass.
    /// - Returns: what `check` returned, or nil on timeout.
    public func wait<Value: Sendable>(timeout: Double, until check: @escaping @Sendable (State) -> Value?) async -> Value? {
        await offPool { self.blockingWait(timeout: timeout, until: check) }
    }

    /// Waits, off the cooperative pool, until `predicate` holds or `timeout` seconds pass.
    /// - Returns: whether it holds.
    public func wait(timeout: Double, until predicate: @escaping @Sendable (State) -> Bool) async -> Bool {
        await wait(timeout: timeout) { predicate($0) ? true : nil } ?? false
    }
}
