import Foundation
import Testing
import WearableGatewayTesting

/// The kit's waits: woken by each change, bounded by a timeout on the monotonic clock.
@Suite("Watched state")
struct WatchedStateTests {
    @Test("a wait returns what the check returns once another thread's change makes it hold")
    func changeEndsWait() async {
        let state = WatchedState<[Int]>([])
        Thread {
            for value in 1...5 { state.update { $0.append(value) } }
        }.start()
        let sum = await state.wait(timeout: 600) { values in values.count == 5 ? values.reduce(0, +) : nil }
        #expect(sum == 15)
        #expect(state.value == [1, 2, 3, 4, 5])
    }

    @Test("a check that never holds gives nil once the timeout has passed, not before")
    func timeout() async {
        let state = WatchedState(0)
        let start = SuspendingClock.now
        let found = await state.wait(timeout: 0.3) { $0 > 0 }
        #expect(found == false)
        #expect(SuspendingClock.now - start >= .milliseconds(300))
    }

    @Test("a blocking wait without timeout returns once the check holds")
    func blockingWaitWithoutTimeout() {
        let state = WatchedState<String?>(nil)
        Thread { state.update { $0 = "done" } }.start()
        #expect(state.blockingWait(timeout: nil) { $0 } == "done")
    }
}
