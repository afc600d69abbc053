import Testing

@testable import TelemetryCore

@Suite("Device clock anchor: boot-relative timestamps to dates")
struct DeviceClockAnchorTests {
    @Test("each estimate is a lower bound; the maximum converges to the boot date")
    func lowerBound() {
        var anchor = DeviceClockAnchor()
        anchor.observe(timestamp: 10)
        #expect(anchor.bootDate == nil, "no date seen yet")
        // Booted at 1 000: a sample taken at date 2 000.4 arrives after a date of 2 000.
        anchor.observe(date: 2_000)
        anchor.observe(timestamp: 1_000.4)
        #expect(anchor.bootDate == 999.6)
        anchor.observe(date: 2_001.2)
        anchor.observe(timestamp: 1_001.3)
        #expect(abs(anchor.bootDate! - 999.9) < 1e-9)
        anchor.observe(date: 1_990)  // a late event's old date does not lower the latest date
        anchor.observe(timestamp: 1_002.3)
        #expect(abs(anchor.bootDate! - 999.9) < 1e-9, "an earlier latest date gives a smaller estimate, which the maximum ignores")
        #expect(abs(anchor.date(ofTimestamp: 1_500)! - 2_499.9) < 1e-9)
        #expect(abs(anchor.timestamp(ofDate: 2_499.9)! - 1_500) < 1e-9)
        anchor.reset()
        #expect(anchor.bootDate == nil && anchor.latestDate == 2_001.2)
    }

    @Test("timestamps going back by more than a second restart the anchor (a reboot)")
    func reboot() {
        var feed = RunFeed()
        feed.workout(.running, 10_000)
        feed.altitude(5_001, 0)
        #expect(feed.deriver.anchor.bootDate == 4_999)
        feed.altitude(5_001, 0)  // a redelivery
        feed.altitude(5_000.5, 0)  // slightly back: out of order, ignored
        #expect(feed.deriver.counters.staleAltitudeSamples == 2)
        feed.data(10_010, steps: 0, start: 10_000)
        feed.altitude(3, 0)  // rebooted 3 s before 10 010 or later
        #expect(feed.deriver.counters.altimeterRestarts == 1)
        #expect(feed.deriver.anchor.bootDate == 10_007)
    }
}
