import Testing

@testable import TelemetryCore

@Suite struct ErrorAggregatorTests {
    @Test("reports the first error of a key at once and counts the rest")
    func firstAtOnce() throws {
        var aggregator = ErrorAggregator<String>(interval: 10)
        let recorded = aggregator.record("a", detail: "bad 1", at: 100)
        let first = try #require(recorded)
        #expect(first == ErrorReport(key: "a", count: 1, detail: "bad 1", firstDate: 100, lastDate: 100))
        #expect(aggregator.record("a", detail: "bad 2", at: 101) == nil)
        #expect(aggregator.record("a", detail: "bad 3", at: 102) == nil)
        #expect(aggregator.pendingCount == 2)
        #expect(aggregator.trackedKeyCount == 1)
        // Another key has its own window.
        #expect(aggregator.record("b", detail: "other", at: 103)?.count == 1)
    }

    @Test("does nothing before the window ends, then reports the count with the last detail and dates")
    func flushAtWindowEnd() {
        var aggregator = ErrorAggregator<String>(interval: 10)
        _ = aggregator.record("a", detail: "bad 1", at: 100)
        _ = aggregator.record("a", detail: "bad 2", at: 101.5)
        _ = aggregator.record("a", detail: "bad 3", at: 109.25)
        #expect(aggregator.flush(now: 109.999).isEmpty)
        #expect(aggregator.flush(now: 110) == [ErrorReport(key: "a", count: 2, detail: "bad 3", firstDate: 101.5, lastDate: 109.25)])
        #expect(aggregator.pendingCount == 0)
        // The next window opened at the old end.
        #expect(aggregator.nextDeadline() == 120)
        #expect(aggregator.record("a", detail: "bad 4", at: 111) == nil)
    }

    @Test("a steady flood yields one report per interval with the right count")
    func flood() {
        var aggregator = ErrorAggregator<String>(interval: 10)
        var reports: [ErrorReport<String>] = []
        // Two errors per second for 30 s; the owner flushes whenever a deadline has passed.
        for tick in 0..<60 {
            let now = Double(tick) * 0.5
            if let deadline = aggregator.nextDeadline(), now >= deadline { reports += aggregator.flush(now: now) }
            if let report = aggregator.record("flood", detail: "tick \(tick)", at: now) { reports.append(report) }
        }
        reports += aggregator.flush(now: 30)
        #expect(reports.map(\.count) == [1, 19, 20, 20])
        #expect(reports.map(\.firstDate) == [0, 0.5, 10, 20])
        #expect(reports.map(\.lastDate) == [0, 9.5, 19.5, 29.5])
        #expect(reports.map(\.detail) == ["tick 0", "tick 19", "tick 39", "tick 59"])
        #expect(reports.reduce(0) { $0 + $1.count } == 60)
        // The flood stopped: the window [30, 40) ends empty and removes the key.
        #expect(aggregator.flush(now: 40).isEmpty)
        #expect(aggregator.trackedKeyCount == 0)
        #expect(aggregator.nextDeadline() == nil)
    }

    @Test("a window that ends empty removes the key, so the next error is reported at once")
    func emptyWindowRemovesKey() {
        var aggregator = ErrorAggregator<String>(interval: 10)
        #expect(aggregator.record("a", detail: "x", at: 0) != nil)
        #expect(aggregator.flush(now: 10).isEmpty)
        #expect(aggregator.trackedKeyCount == 0)
        #expect(aggregator.nextDeadline() == nil)
        #expect(aggregator.record("a", detail: "y", at: 11) == ErrorReport(key: "a", count: 1, detail: "y", firstDate: 11, lastDate: 11))
    }

    @Test("nextDeadline is the earliest window end")
    func nextDeadline() {
        var aggregator = ErrorAggregator<String>(interval: 10)
        #expect(aggregator.nextDeadline() == nil)
        _ = aggregator.record("a", detail: "", at: 5)
        #expect(aggregator.nextDeadline() == 15)
        _ = aggregator.record("b", detail: "", at: 7)
        _ = aggregator.record("b", detail: "", at: 8)
        #expect(aggregator.nextDeadline() == 15)
        // "a" ends empty and goes; "b" is still open until 17.
        #expect(aggregator.flush(now: 15).isEmpty)
        #expect(aggregator.nextDeadline() == 17)
        #expect(aggregator.flush(now: 17).map(\.key) == ["b"])
        #expect(aggregator.nextDeadline() == 27)
        // Dates that go backwards still pull the deadline earlier.
        _ = aggregator.record("c", detail: "", at: 1)
        #expect(aggregator.nextDeadline() == 11)
    }

    @Test("counts an error that arrives after its window ended but before the flush")
    func lateFlush() {
        var aggregator = ErrorAggregator<String>(interval: 10)
        _ = aggregator.record("a", detail: "1", at: 0)
        _ = aggregator.record("a", detail: "2", at: 5)
        #expect(aggregator.record("a", detail: "3", at: 12) == nil)
        #expect(aggregator.flush(now: 12.5) == [ErrorReport(key: "a", count: 2, detail: "3", firstDate: 5, lastDate: 12)])
        #expect(aggregator.nextDeadline() == 20)
    }

    @Test("a flush more than an interval late opens the next window at now")
    func veryLateFlush() {
        var aggregator = ErrorAggregator<String>(interval: 10)
        _ = aggregator.record("a", detail: "1", at: 0)
        _ = aggregator.record("a", detail: "2", at: 5)
        #expect(aggregator.flush(now: 35).map(\.count) == [1])
        #expect(aggregator.nextDeadline() == 45)
        // The window is open, so a new error is counted rather than reported at once.
        #expect(aggregator.record("a", detail: "3", at: 36) == nil)
    }

    @Test("bounds the number of keys and counts the rest into one overflow report")
    func maxKeys() throws {
        var aggregator = ErrorAggregator<String>(interval: 10, maxKeys: 2)
        #expect(aggregator.record("a", detail: "a1", at: 0)?.isOverflow == false)
        #expect(aggregator.record("b", detail: "b1", at: 0)?.isOverflow == false)
        let recorded = aggregator.record("c", detail: "c1", at: 1)
        let overflow = try #require(recorded)
        #expect(overflow == ErrorReport(key: "c", isOverflow: true, count: 1, detail: "c1", firstDate: 1, lastDate: 1))
        #expect(aggregator.record("d", detail: "d1", at: 2) == nil)
        #expect(aggregator.record("e", detail: "e1", at: 3) == nil)
        #expect(aggregator.record("a", detail: "a2", at: 4) == nil)
        #expect(aggregator.trackedKeyCount == 2)
        #expect(aggregator.pendingCount == 3)

        let reports = aggregator.flush(now: 11)
        #expect(reports == [
            ErrorReport(key: "a", count: 1, detail: "a2", firstDate: 4, lastDate: 4),
            ErrorReport(key: "e", isOverflow: true, count: 2, detail: "e1", firstDate: 2, lastDate: 3),
        ])
        // "b" ended empty and made room for a new key.
        #expect(aggregator.trackedKeyCount == 1)
        #expect(aggregator.record("f", detail: "f1", at: 12)?.isOverflow == false)
    }

    @Test("flush returns reports in the order keys opened their windows")
    func deterministicOrder() {
        var aggregator = ErrorAggregator<Int>(interval: 10)
        let keys = Array((0..<200).reversed())
        for key in keys {
            _ = aggregator.record(key, detail: "", at: 0)
            _ = aggregator.record(key, detail: "", at: 1)
        }
        #expect(aggregator.flush(now: 10).map(\.key) == keys)
    }
}
