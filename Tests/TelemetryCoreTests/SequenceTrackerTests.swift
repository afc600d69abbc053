import Testing
import TelemetryCore

@Suite struct SequenceTrackerTests {
    private static let watch = DeviceID("watch-1")!
    private static let buds = DeviceID("buds-1")!

    /// Records `numbers` for one device and stream and returns the observations.
    private static func observe(_ numbers: [UInt64], tracker: inout SequenceTracker, stream: InboundStream = .motion) -> [SequenceObservation] {
        numbers.map { tracker.record($0, device: watch, stream: stream) }
    }

    @Test("in-order frames are first, then next")
    func inOrder() {
        var tracker = SequenceTracker(maxTrackedPairs: 10)
        #expect(Self.observe([1, 2, 3, 4], tracker: &tracker) == [.first, .next, .next, .next])
        #expect(tracker.counters(for: .motion) == {
            var counters = SequenceCounters()
            counters.frames = 4
            return counters
        }())
    }

    @Test("counts the numbers a gap skips")
    func gap() {
        var tracker = SequenceTracker(maxTrackedPairs: 10)
        #expect(Self.observe([1, 2, 5, 6, 106], tracker: &tracker) == [.first, .next, .gap(missing: 2), .next, .gap(missing: 99)])
        #expect(tracker.counters(for: .motion).missing == 101)
    }

    @Test("counts duplicates of the highest and of recent numbers")
    func duplicates() {
        var tracker = SequenceTracker(maxTrackedPairs: 10)
        #expect(Self.observe([1, 2, 2, 3, 1, 2], tracker: &tracker) == [.first, .next, .duplicate, .next, .duplicate, .duplicate])
        #expect(tracker.counters(for: .motion).duplicates == 3)
        #expect(tracker.counters(for: .motion).reordered == 0)
    }

    @Test("counts a late frame as reordered, and its second arrival as a duplicate")
    func reorder() {
        var tracker = SequenceTracker(maxTrackedPairs: 10)
        #expect(Self.observe([1, 3, 2, 2, 4], tracker: &tracker) == [.first, .gap(missing: 1), .reordered, .duplicate, .next])
        let counters = tracker.counters(for: .motion)
        #expect(counters.missing == 1)
        #expect(counters.reordered == 1)
        #expect(counters.duplicates == 1)
        #expect(counters.frames == 5)
    }

    @Test("remembers the 64 numbers below the highest, across gaps")
    func window() {
        var tracker = SequenceTracker(maxTrackedPairs: 10)
        _ = Self.observe([100, 110, 164], tracker: &tracker)
        // 100 and 110 were seen: 164 − 100 = 64 is still inside the window.
        #expect(Self.observe([100, 110, 101, 163], tracker: &tracker) == [.duplicate, .duplicate, .reordered, .reordered])
        // 65 below the highest is beyond the window: a restart of the numbering.
        #expect(Self.observe([99], tracker: &tracker) == [.restarted])
        #expect(Self.observe([100, 101], tracker: &tracker) == [.next, .next])
        #expect(tracker.counters(for: .motion).restarts == 1)
    }

    @Test("a sender numbering from 1 again is a restart")
    func restart() {
        var tracker = SequenceTracker(maxTrackedPairs: 10)
        _ = Self.observe(Array(1...500), tracker: &tracker)
        #expect(Self.observe([1, 2, 3], tracker: &tracker) == [.restarted, .next, .next])
        #expect(tracker.counters(for: .motion).reordered == 0)
    }

    @Test("wraps from UInt64.max to 0 and never traps at the bounds")
    func wrapAtBounds() {
        var tracker = SequenceTracker(maxTrackedPairs: 10)
        #expect(Self.observe([.max - 1, .max, 0, 1], tracker: &tracker) == [.first, .next, .next, .next])
        #expect(Self.observe([.max], tracker: &tracker) == [.duplicate])
        #expect(Self.observe([.max - 3], tracker: &tracker) == [.reordered])

        var jumps = SequenceTracker(maxTrackedPairs: 10)
        // The largest forward jump in serial arithmetic (2⁶³ − 1), three times: the missing count saturates.
        let largestJump: UInt64 = 1 << 63 - 1
        let numbers: [UInt64] = [0, largestJump, largestJump &* 2, largestJump &* 3]
        let skipped = largestJump - 1
        #expect(Self.observe(numbers, tracker: &jumps) == [.first, .gap(missing: skipped), .gap(missing: skipped), .gap(missing: skipped)])
        #expect(jumps.counters(for: .motion).missing == .max)
    }

    @Test("tracks each device and stream on its own")
    func perDeviceAndStream() {
        var tracker = SequenceTracker(maxTrackedPairs: 10)
        #expect(tracker.record(1, device: Self.watch, stream: .motion) == .first)
        #expect(tracker.record(1, device: Self.watch, stream: .altimeter) == .first)
        #expect(tracker.record(1, device: Self.buds, stream: .motion) == .first)
        #expect(tracker.record(3, device: Self.buds, stream: .motion) == .gap(missing: 1))
        #expect(tracker.record(2, device: Self.watch, stream: .motion) == .next)
        #expect(tracker.trackedPairCount == 3)
        #expect(tracker.counters(for: .motion).frames == 4)
        #expect(tracker.counters(for: .motion).missing == 1)
        #expect(tracker.counters(for: .altimeter).frames == 1)
    }

    @Test("bounds the tracked pairs; forgetting a device frees its pairs")
    func bound() {
        var tracker = SequenceTracker(maxTrackedPairs: 2)
        #expect(tracker.record(1, device: Self.watch, stream: .motion) == .first)
        #expect(tracker.record(1, device: Self.watch, stream: .altimeter) == .first)
        #expect(tracker.record(1, device: Self.buds, stream: .headphoneMotion) == .untracked)
        #expect(tracker.record(2, device: Self.watch, stream: .motion) == .next)
        #expect(tracker.counters(for: .headphoneMotion).untracked == 1)
        #expect(tracker.counters(for: .headphoneMotion).frames == 1)

        tracker.forget(device: Self.watch)
        #expect(tracker.trackedPairCount == 0)
        #expect(tracker.record(2, device: Self.buds, stream: .headphoneMotion) == .first)
        // A forgotten device starts over: a low number is not a reorder.
        #expect(tracker.record(1, device: Self.watch, stream: .motion) == .first)
    }
}
