#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a lock: the package's one way to share mutable state between threads and
/// tasks (libmosquitto's loop thread, Swift tasks, Dispatch queues).
///
/// Keep the closures short and free of I/O and `await`: compute what to do under the lock and
/// act after it (house style). A class, so escaping closures and several owners can capture the
/// same box. A thread that must block until the state changes uses ``MonotonicCondition``
/// instead, which is a wait, not a lock.
///
/// A pthread mutex (rather than `Synchronization.Mutex`) keeps ThreadSanitizer able to see the
/// synchronisation on Linux.
package final class LockedState<Value>: @unchecked Sendable {
    private var value: Value
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    /// Creates the box with its initial value.
    package init(_ value: Value) {
        self.value = value
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
