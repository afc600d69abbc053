import Locking
import Testing

@testable import TelemetryGateway

/// The gateway's clock: the manual one tests move (sleepers wake on the advance that reaches
/// their deadline, never before), the system one, and runtime parts timed on a manual clock.
@Suite(.timeLimit(.minutes(1)))
struct GatewayClockTests {
    /// Waits, without sleeping, until `count` tasks sleep on `clock`: each yield lets the
    /// sleeping tasks run up to their suspension. False if they never get there.
    private static func asleep(_ clock: ManualGatewayClock, count: Int) async -> Bool {
        for _ in 0..<100_000 {
            if clock.sleepers == count { return true }
            await Task.yield()
        }
        return clock.sleepers == count
    }

    /// Waits, without sleeping, until `condition` holds (a woken task has run on).
    private static func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<100_000 {
            if condition() { return true }
            await Task.yield()
        }
        return condition()
    }

    // MARK: ManualGatewayClock

    @Test("a sleeper wakes on the advance that reaches its deadline, not on one short of it")
    func wakesAtItsDeadline() async throws {
        let clock = ManualGatewayClock(wallTime: 1_700_000_000)
        let deadline = clock.monotonicNow() + .seconds(1)
        let woken = LockedState(false)
        let sleeper = Task {
            try await clock.sleep(until: deadline)
            woken.withLock { $0 = true }
        }
        try #require(await Self.asleep(clock, count: 1))
        clock.advance(by: 0.999)
        #expect(clock.sleepers == 1, "1 ms short of the deadline")
        #expect(!woken.withLock { $0 })
        clock.advance(by: 0.001)
        #expect(clock.sleepers == 0, "the advance reaching the deadline wakes it")
        try await sleeper.value
        #expect(woken.withLock { $0 })
        #expect(clock.monotonicNow() == deadline)
    }

    @Test("a deadline already reached returns at once, without an advance")
    func pastDeadline() async throws {
        let clock = ManualGatewayClock(wallTime: 1_700_000_000)
        let start = clock.monotonicNow()
        try await clock.sleep(until: start)
        try await clock.sleep(until: start - .seconds(5))
        try await clock.sleep(for: 0)
        try await clock.sleep(for: -1)
        clock.advance(by: 2)
        try await clock.sleep(until: start + .seconds(1))
        #expect(clock.sleepers == 0)
        #expect(clock.secondsSince(start) == 2)
    }

    @Test("a cancelled sleeper throws CancellationError and is no longer a sleeper")
    func cancellation() async throws {
        let clock = ManualGatewayClock(wallTime: 1_700_000_000)
        let sleeper = Task { try await clock.sleep(for: 60) }
        try #require(await Self.asleep(clock, count: 1))
        sleeper.cancel()
        #expect(clock.sleepers == 0, "removed when cancelled, not at the next advance")
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        // A later advance past its deadline finds nothing to wake (a second resume would trap).
        clock.advance(by: 120)
        #expect(clock.sleepers == 0)
    }

    @Test("sleepers with different deadlines each wake on the advance that reaches theirs")
    func severalSleepers() async throws {
        let clock = ManualGatewayClock(wallTime: 1_700_000_000)
        let start = clock.monotonicNow()
        let woken = LockedState<[Int]>([])
        let sleepers = [3, 1, 2].map { seconds in
            Task {
                try await clock.sleep(until: start + .seconds(seconds))
                woken.withLock { $0.append(seconds) }
            }
        }
        try #require(await Self.asleep(clock, count: 3))
        clock.advance(by: 0.5)
        #expect(clock.sleepers == 3)
        clock.advance(by: 1)
        #expect(clock.sleepers == 2, "1.5 s: the 1 s sleeper only")
        #expect(await Self.eventually { woken.withLock { $0 } == [1] })
        clock.advance(by: 0.4)
        #expect(clock.sleepers == 2, "1.9 s: nothing more")
        clock.advance(by: 0.1)
        #expect(clock.sleepers == 1, "2 s: the 2 s sleeper")
        #expect(await Self.eventually { woken.withLock { $0 } == [1, 2] })
        clock.advance(by: 5)
        #expect(clock.sleepers == 0)
        for sleeper in sleepers { try await sleeper.value }
        #expect(woken.withLock { $0 } == [1, 2, 3])
    }

    // MARK: SystemGatewayClock

    @Test("the system clock's sleep(for: 0.05) lasts at least 0.05 s of monotonic time")
    func systemSleep() async throws {
        let clock = SystemGatewayClock()
        let start = clock.monotonicNow()
        let machineStart = SuspendingClock.now
        try await clock.sleep(for: 0.05)
        #expect(clock.secondsSince(start) >= 0.05)
        #expect(SuspendingClock.now - machineStart >= .milliseconds(50), "its monotonic side is the machine's")
    }

    // MARK: Runtime parts on a manual clock

    @Test("RateLimitedLog lets one line through per interval of its clock")
    func rateLimitedLog() {
        let clock = ManualGatewayClock(wallTime: 1_700_000_000)
        let log = RateLimitedLog(interval: 10, clock: clock)
        #expect(log.shouldLog())
        #expect(!log.shouldLog())
        clock.advance(by: 9.999)
        #expect(!log.shouldLog(), "9.999 s after the last line")
        clock.advance(by: 0.001)
        #expect(log.shouldLog(), "10 s after the last line")
        #expect(!log.shouldLog())
    }

    @Test("ShutdownDeadline counts the drain and the flush from the start, on its clock")
    func shutdownDeadline() {
        let clock = ManualGatewayClock(wallTime: 1_700_000_000)
        let deadline = ShutdownDeadline(drainTimeout: 10, clock: clock)
        clock.advance(by: 100)
        #expect(deadline.drainRemaining == 10, "not started: the whole budget")
        #expect(deadline.start())
        clock.advance(by: 4)
        #expect(!deadline.start(), "the first start counts")
        #expect(deadline.drainRemaining == 6)
        #expect(deadline.flushRemaining == 2 * 10 - ShutdownDeadline.disconnectAllowance - 4)
        clock.advance(by: 20)
        #expect(deadline.drainRemaining == 0)
        #expect(deadline.flushRemaining == 0.2, "never less than 0.2 s for the last acknowledgements")
    }

    @Test("a store call times out when its clock reaches the deadline, not before; one that answers cancels its timer")
    func storeDeadline() async throws {
        let clock = ManualGatewayClock(wallTime: 1_700_000_000)
        // The store answers only after 60 s on the same clock.
        let call = Task { try await withStoreDeadline(2, clock: clock) { try await clock.sleep(for: 60) } }
        try #require(await Self.asleep(clock, count: 2))
        clock.advance(by: 1.9)
        #expect(clock.sleepers == 2, "1.9 s: still waiting for the store")
        clock.advance(by: 0.1)
        #expect(clock.sleepers == 1, "2 s: the deadline's timer woke")
        await #expect(throws: StoreDeadlineExceeded.self) { try await call.value }
        clock.advance(by: 58)
        #expect(clock.sleepers == 0, "the store call ran on in the background until it ended")

        #expect(try await withStoreDeadline(2, clock: clock) { 42 } == 42)
        #expect(await Self.eventually { clock.sleepers == 0 }, "the answered call's timer was cancelled")
    }

    @Test("a store call whose caller is cancelled ends at once with CancellationError, before its deadline; the store call runs on")
    func storeDeadlineCancelled() async throws {
        let clock = ManualGatewayClock(wallTime: 1_700_000_000)
        let call = Task { try await withStoreDeadline(30, clock: clock) { try await clock.sleep(for: 60) } }
        try #require(await Self.asleep(clock, count: 2))
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
        clock.advance(by: 60)
        #expect(await Self.eventually { clock.sleepers == 0 })
        let cancelledFirst = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await withStoreDeadline(30, clock: clock) { 42 }
        }
        await #expect(throws: CancellationError.self) { try await cancelledFirst.value }
    }
}
