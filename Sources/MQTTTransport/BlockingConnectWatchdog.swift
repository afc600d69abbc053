import Foundation
import Locking

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Bounds a blocking call that only a signal can end: libmosquitto's `mosquitto_connect*`
/// opens its TCP connection with a blocking `connect()`, which against a broker that drops
/// SYNs waits for the kernel's SYN retries (about two minutes with `tcp_syn_retries` 6) and
/// would hold the network thread far beyond `mqtt.connectTimeout`.
///
/// ``run(until:_:)`` runs the call on the current thread while a helper thread waits for the
/// deadline; past it, the helper sends `SIGURG` to the calling thread every 50 ms until the
/// call returns (a signal that lands just before the thread enters `connect()` is lost, the
/// next one is not). The process-wide handler for `SIGURG` does nothing and is installed
/// without `SA_RESTART`, so the signal makes `connect()` fail with `EINTR`; libmosquitto then
/// closes the socket and returns an error. `SIGURG` is ignored by default and only ever sent
/// by the kernel to a socket's owner set with `F_SETOWN`, so a no-op handler changes nothing
/// for the rest of the process.
struct BlockingConnectWatchdog {
    /// The signal that interrupts the blocked thread.
    static let interruptSignal = SIGURG
    /// How often the helper repeats the signal once the deadline has passed.
    static let repeatInterval: Duration = .milliseconds(50)

    private static let handlerInstalled: Bool = {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in }
        sigemptyset(&action.sa_mask)
        // No SA_RESTART: the interrupted connect() must return EINTR, not be restarted.
        action.sa_flags = 0
        return sigaction(interruptSignal, &action, nil) == 0
    }()

    /// Runs `body` on the calling thread; if it has not returned by `deadline`, interrupts it
    /// (see the type's description). Returns what `body` returned and whether the deadline
    /// passed while it ran.
    static func run<Result>(until deadline: ContinuousClock.Instant, _ body: () -> Result) -> (result: Result, timedOut: Bool) {
        guard handlerInstalled else { return (body(), false) }
        let target = pthread_self()
        let condition = MonotonicCondition()
        let flags = LockedState((done: false, fired: false))
        let monotonicDeadline = SuspendingClock.now + (deadline - ContinuousClock.now)
        let helper = Thread {
            CurrentThread.setName("mqtt-connect-wd")
            condition.lock()
            defer { condition.unlock() }
            var next = monotonicDeadline
            while !flags.withLock({ $0.done }) {
                if condition.wait(until: next) { continue }
                flags.withLock { $0.fired = true }
                pthread_kill(target, interruptSignal)
                next = SuspendingClock.now + repeatInterval
            }
        }
        // A thread started from a dispatch worker inherits its mask, which blocks SIGURG: the
        // signal would stay pending and the connect() would not end.
        var unblock = sigset_t()
        var previous = sigset_t()
        sigemptyset(&unblock)
        sigaddset(&unblock, interruptSignal)
        pthread_sigmask(SIG_UNBLOCK, &unblock, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        helper.start()
        let result = body()
        condition.withLock {
            flags.withLock { $0.done = true }
            condition.broadcast()
        }
        return (result, flags.withLock { $0.fired })
    }
}
