import Foundation
import Locking
import Testing

/// Timed waits of the condition the gateway's blocking hand-offs and the kit's waits use. (That
/// a step of the wall clock moves none of them is shown on a real process, in
/// PublishExpectTests: that needs a child whose wall clock can be stepped.)
@Suite("Monotonic condition")
struct MonotonicConditionTests {
    @Test("a timed wait nobody signals returns false, and not before its deadline")
    func timesOut() {
        let condition = MonotonicCondition()
        let deadline = SuspendingClock.now + .milliseconds(200)
        var woken = 0
        condition.withLock {
            // Spurious wake-ups return true; the loop goes on waiting until the deadline.
            while condition.wait(until: deadline) { woken += 1 }
        }
        #expect(SuspendingClock.now >= deadline, "returned early after \(woken) wake-ups")
    }

    @Test("a deadline already passed returns false without waiting for a signal")
    func pastDeadline() {
        let condition = MonotonicCondition()
        let result = condition.withLock { condition.wait(until: SuspendingClock.now - .seconds(1)) }
        #expect(result == false)
    }

    @Test("a broadcast wakes a waiter whose deadline is far away")
    func broadcastWakes() async {
        let condition = MonotonicCondition()
        let flags = Flags()
        let woken = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            Thread {
                let result = condition.withLock { () -> Bool in
                    let deadline = SuspendingClock.now + .seconds(600)
                    flags.waiting = true
                    while !flags.set {
                        if !condition.wait(until: deadline) { return false }
                    }
                    return true
                }
                continuation.resume(returning: result)
            }.start()
            // Once this thread holds the mutex and sees `waiting`, the waiter is inside its wait
            // (it released the mutex only there).
            Thread {
                while !condition.withLock({ flags.waiting }) { usleep(1_000) }
                condition.withLock {
                    flags.set = true
                    condition.broadcast()
                }
            }.start()
        }
        #expect(woken, "the waiter timed out instead of being woken")
    }
}

/// Flags guarded by the condition under test (read and written holding its mutex).
private final class Flags: @unchecked Sendable {
    var waiting = false
    var set = false
}
