#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A mutex with a condition variable whose timed waits count on the monotonic clock.
///
/// Foundation's `NSCondition.wait(until:)` takes a wall-clock `Date`: when the system clock is
/// stepped (an NTP correction, a virtual machine resumed) while a thread waits, the wait ends at
/// once (a step forward) or lasts as long again as the step (a step back). Deadlines here are
/// `SuspendingClock` instants, which on Linux read `CLOCK_MONOTONIC`, the clock the condition
/// variable waits on: no step of the wall clock moves them, and time the machine spent suspended
/// (a paused virtual machine) does not count.
///
/// Use it like `NSCondition`: lock, check the condition, wait while it does not hold, unlock.
/// It is for a thread that must block until the state changes (a wait, not a lock): state that
/// no thread waits on lives in ``LockedState``.
public final class MonotonicCondition: @unchecked Sendable {
    // Heap storage: pthread objects must not move, and a Swift stored property may.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deinitialize(count: 1)
        condition.deallocate()
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Takes the mutex.
    public func lock() { pthread_mutex_lock(mutex) }

    /// Releases the mutex.
    public func unlock() { pthread_mutex_unlock(mutex) }

    /// Runs `body` holding the mutex.
    public func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Wakes one waiting thread. Call holding the mutex, after changing what waiters check.
    public func signal() { pthread_cond_signal(condition) }

    /// Wakes every waiting thread. Call holding the mutex, after changing what waiters check.
    public func broadcast() { pthread_cond_broadcast(condition) }

    /// Releases the mutex and waits for a signal; holds the mutex again on return. May return
    /// without a signal: check the condition in a loop.
    public func wait() { pthread_cond_wait(condition, mutex) }

    /// Releases the mutex and waits for a signal or until `deadline`; holds the mutex again on
    /// return.
    /// - Returns: false once `deadline` has passed (check the condition once more), true when
    ///   woken before it (possibly without a signal: check the condition in a loop).
    public func wait(until deadline: SuspendingClock.Instant) -> Bool {
        let remaining = deadline - .now
        guard remaining > .zero else { return false }
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        // A year is as good as forever for a wait, and keeps the sum far from overflowing.
        let seconds = min(remaining.components.seconds, 365 * 86_400)
        let nanoseconds = Int(remaining.components.attoseconds / 1_000_000_000) + time.tv_nsec
        time.tv_sec += time_t(seconds) + time_t(nanoseconds / 1_000_000_000)
        time.tv_nsec = nanoseconds % 1_000_000_000
        return pthread_cond_timedwait(condition, mutex, &time) == 0
    }
}
