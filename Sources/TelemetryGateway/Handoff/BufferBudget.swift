import MQTTTransport
import TelemetryCore
import Locking

/// A bound, in bytes, on what all the hand-off queues hold together (`pipeline.maxBufferedBytes`).
///
/// 8,192 queued 800 Hz batches of ~90 KB are 700 MB: a count says nothing about memory. The
/// subscriber reserves a frame's bytes before queueing it and waits (blocking its network thread,
/// which pushes back on the broker) while the budget is spent; workers give the bytes back when
/// they take frames off their queue.
final class BufferBudget: @unchecked Sendable {
    /// The bound in bytes.
    let limit: Int
    /// Where a wait is measured; the thread blocks on the condition until this clock's monotonic
    /// now plus the wait (`CLOCK_MONOTONIC` on the system clock, the condition's own).
    private let clock: any GatewayClock
    private let condition = MonotonicCondition()
    private var used = 0
    private var cancelled = false

    /// Creates a budget of `limit` bytes whose waits are measured on `clock`.
    init(limit: Int, clock: any GatewayClock) {
        precondition(limit > 0, "the buffer budget must be positive")
        self.limit = limit
        self.clock = clock
    }

    /// Reserves `bytes`, waiting up to `maxWait` seconds for room. A frame larger than the whole
    /// budget is let through when nothing else is buffered. Returns how long it waited and
    /// whether it had to take the bytes over the limit after waiting in vain.
    func reserve(_ bytes: Int, maxWait: Double) -> (waited: Double, overLimit: Bool) {
        condition.lock()
        defer { condition.unlock() }
        var waited = 0.0
        var overLimit = false
        if !fits(bytes) {
            let start = clock.monotonicNow()
            let deadline = start + .seconds(maxWait)
            while !fits(bytes) && !cancelled {
                if !condition.wait(until: deadline) {
                    overLimit = !fits(bytes)
                    break
                }
            }
            waited = clock.secondsSince(start)
        }
        used += bytes
        return (waited, overLimit)
    }

    /// Gives bytes back (a worker took frames off its queue).
    func release(_ bytes: Int) {
        guard bytes > 0 else { return }
        condition.lock()
        used -= bytes
        condition.broadcast()
        condition.unlock()
    }

    /// Stops every wait (shutdown).
    func cancelWaits() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    /// Bytes buffered now.
    var bufferedBytes: Int {
        condition.lock()
        defer { condition.unlock() }
        return used
    }

    private func fits(_ bytes: Int) -> Bool { used == 0 || used + bytes <= limit }
}
