import Testing

@testable import TelemetryCore

@Suite("Tremor minute schedule: each complete minute once, in order")
struct TremorMinuteScheduleTests {
    private let device = DeviceID("watch-1")!
    private let base = 1_700_000_040.0  // a minute boundary

    @Test("a minute completes once the data is grace seconds past its end")
    func graceCompletes() {
        var schedule = TremorMinuteSchedule(grace: 5, idleTimeout: 30)
        #expect(schedule.recorded(device, oldest: base, newest: base + 59.98, receivedAt: 0) == nil)
        #expect(schedule.recorded(device, oldest: base + 60, newest: base + 64.9, receivedAt: 1) == nil)
        #expect(schedule.recorded(device, oldest: base + 65, newest: base + 65.0, receivedAt: 2) == base..<(base + 60))
        // Never twice.
        #expect(schedule.recorded(device, oldest: base + 65, newest: base + 66, receivedAt: 3) == nil)
        // A jump completes every minute before it at once.
        #expect(schedule.recorded(device, oldest: base + 300, newest: base + 306, receivedAt: 4) == (base + 60)..<(base + 300))
    }

    @Test("an older chunk does not move the high water back")
    func olderChunk() {
        var schedule = TremorMinuteSchedule(grace: 5, idleTimeout: 30)
        _ = schedule.recorded(device, oldest: base + 100, newest: base + 110, receivedAt: 0)
        _ = schedule.recorded(device, oldest: base + 10, newest: base + 20, receivedAt: 1)
        #expect(schedule.state(of: device)?.highWater == base + 110)
    }

    @Test("an idle device's last reached minute completes after the idle timeout, a partial minute never")
    func idle() {
        var schedule = TremorMinuteSchedule(grace: 5, idleTimeout: 30)
        // The first minute completes with the data; the second, whose end the data reached
        // without the grace, only once the device has been idle long enough.
        #expect(schedule.recorded(device, oldest: base, newest: base + 119.98, receivedAt: 100) == base..<(base + 60))
        #expect(schedule.tick(now: 129).isEmpty)
        let due = schedule.tick(now: 130)
        #expect(due.count == 1)
        #expect(due.first?.1 == (base + 60)..<(base + 120))
        #expect(schedule.tick(now: 1000).isEmpty)

        var partial = TremorMinuteSchedule(grace: 5, idleTimeout: 30)
        _ = partial.recorded(device, oldest: base, newest: base + 30, receivedAt: 100)
        #expect(partial.tick(now: 1000).isEmpty)
    }

    @Test("a restored device resumes at its persisted minute")
    func restore() {
        var schedule = TremorMinuteSchedule(grace: 5, idleTimeout: 30)
        schedule.restore(device, highWater: base + 130, nextMinute: base + 120, now: 0)
        #expect(schedule.recorded(device, oldest: base + 131, newest: base + 185, receivedAt: 1) == (base + 120)..<(base + 180))
    }

    @Test("idle devices whose minutes are all published are forgotten")
    func forgets() {
        var schedule = TremorMinuteSchedule(grace: 5, idleTimeout: 30)
        _ = schedule.recorded(device, oldest: base, newest: base + 70, receivedAt: 0)
        schedule.forgetIdle(now: 10, age: 3600)
        #expect(schedule.knows(device))
        schedule.forgetIdle(now: 4000, age: 3600)
        #expect(!schedule.knows(device))
    }
}
