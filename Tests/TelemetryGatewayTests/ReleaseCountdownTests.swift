import Dispatch
import Locking
import Testing

@testable import TelemetryGateway

/// A frame's journal record is let go by its countdown: exactly once, and only after every part.
@Suite struct ReleaseCountdownTests {
    @Test("calls onDone once, after the last of many parts finished on many threads")
    func concurrentParts() {
        let calls = LockedState(0)
        let parts = 20_000
        let countdown = ReleaseCountdown(parts: parts) { calls.withLock { $0 += 1 } }
        // All but one part, from every core at once: not done yet.
        DispatchQueue.concurrentPerform(iterations: parts - 1) { _ in countdown.partDone() }
        #expect(calls.withLock { $0 } == 0)
        countdown.partDone()
        #expect(calls.withLock { $0 } == 1)
    }

    @Test("a countdown of no parts is done at once")
    func noParts() {
        let calls = LockedState(0)
        _ = ReleaseCountdown(parts: 0) { calls.withLock { $0 += 1 } }
        #expect(calls.withLock { $0 } == 1)
    }
}
