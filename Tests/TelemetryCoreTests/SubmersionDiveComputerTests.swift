import Foundation
import Testing

@testable import TelemetryCore

private func payload(_ message: OutboundMessage?) -> [String: Any] {
    guard let message, let object = try? JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any] else { return [:] }
    return object
}

private func number(_ object: [String: Any], _ key: String) -> Double? { (object[key] as? NSNumber)?.doubleValue }

/// Depth samples at 3 Hz along straight legs: (seconds, m/min; positive = rising).
private func samples(from start: Double, legs: [(seconds: Double, rising: Double)]) -> [(date: Double, depth: Double)] {
    var result: [(date: Double, depth: Double)] = [(0, start)]
    var depth = start
    var index = 0
    for leg in legs {
        for _ in 0..<Int(leg.seconds * 3) {
            index += 1
            depth -= leg.rising / 60 / 3
            result.append((Double(index) / 3, depth))
        }
    }
    return result
}

private func warnings(_ series: [(date: Double, depth: Double)], configuration: AscentRateMonitor.Configuration = .init()) -> [AscentRateMonitor.Warning] {
    var monitor = AscentRateMonitor(configuration: configuration)
    return series.compactMap { monitor.record(depth: $0.depth, date: $0.date) }
}

@Suite("Dive computer rules: ascent rate and safety stop")
struct SubmersionDiveComputerTests {
    // MARK: Ascent rate

    @Test("holding depth or descending never warns")
    func noWarning() {
        #expect(warnings(samples(from: 10, legs: [(30, 0), (30, -20), (30, 0)])).isEmpty)
    }

    @Test("rising at 12 m/min warns once, with the rate over the 3 s window")
    func fastAscent() throws {
        let series = samples(from: 20, legs: [(10, 0), (20, 12)])
        let found = warnings(series)
        try #require(found.count == 1)
        let warning = found[0]
        #expect(warning.rate > 10 && warning.rate <= 12 + 1e-9, "\(warning)")
        #expect(warning.date - warning.fromDate >= 3)
        #expect(warning.date - warning.fromDate < 3.34)
        #expect(warning.fromDepth > warning.depth)
        // The first sample whose window rate exceeds 10 m/min: the window straddles the bottom.
        #expect(warning.date > 10 && warning.date < 13.5)
    }

    @Test("a warning needs a rate above the limit", arguments: [(9.9, 0), (10.5, 1)])
    func atTheLimit(rising: Double, expected: Int) {
        #expect(warnings(samples(from: 20, legs: [(5, 0), (30, rising)])).count == expected)
    }

    @Test("a custom limit and window")
    func customLimit() {
        let configuration = AscentRateMonitor.Configuration(limit: 5, window: 6)
        #expect(warnings(samples(from: 20, legs: [(10, 0), (30, 6)]), configuration: configuration).count == 1)
        #expect(warnings(samples(from: 20, legs: [(10, 0), (30, 4.5)]), configuration: configuration).isEmpty)
    }

    @Test("one warning per fast ascent: re-armed only after slowing to 80 % of the limit")
    func rearm() {
        let series = samples(from: 20, legs: [(10, 12), (10, 9), (10, 12), (10, 5), (10, 12)])
        #expect(warnings(series).count == 2)
    }

    @Test("no rate across a gap longer than two windows")
    func gap() {
        #expect(warnings([(0, 20), (10, 10), (20, 0)]).isEmpty)
        #expect(warnings([(0, 20), (3, 19), (6, 17)]).count == 1, "20 m/min, then 40 m/min: one warning")
    }

    @Test("reset forgets the samples")
    func reset() {
        var monitor = AscentRateMonitor()
        _ = monitor.record(depth: 20, date: 0)
        monitor.reset()
        #expect(monitor.record(depth: 5, date: 3) == nil)
        #expect(monitor.currentRate == nil)
    }

    // MARK: Safety stop

    private static func rule(_ series: [(date: Double, depth: Double)], _ configuration: SafetyStopRule.Configuration = .init()) -> SafetyStopRule {
        var rule = SafetyStopRule(configuration: configuration)
        for sample in series { rule.record(depth: sample.depth, date: sample.date) }
        return rule
    }

    @Test("dives not deeper than the limit need no stop")
    func notRequired() {
        #expect(Self.rule(samples(from: 0, legs: [(60, -10), (60, 10)])).outcome == .notRequired)
        #expect(Self.rule([]).outcome == .notRequired)
    }

    @Test("a 3-minute stop in the 3–6 m band after the deepest point completes it")
    func completed() {
        // 18 m, up at 9 m/min to 4.5 m, 200 s there, up to the surface.
        let rule = Self.rule(samples(from: 18, legs: [(90, 9), (200, 0), (30, 9)]))
        #expect(rule.outcome == .completed)
        #expect(rule.longestStop >= 200)
        #expect(rule.deepest == 18)
    }

    @Test("too short a stop is missed")
    func tooShort() {
        let rule = Self.rule(samples(from: 18, legs: [(90, 9), (120, 0), (30, 9)]))
        #expect(rule.outcome == .missed)
        #expect(rule.longestStop > 120 && rule.longestStop < 180)
    }

    @Test("a stop before the deepest point does not count")
    func stopBeforeDeepest() {
        // Down to 4.5 m, 200 s there, then down to 15 m and straight up.
        let rule = Self.rule(samples(from: 0, legs: [(30, -9), (200, 0), (70, -9), (100, 9)]))
        #expect(rule.outcome == .missed)
    }

    @Test("leaving the band breaks the stop")
    func leavingBand() {
        // 100 s at 4.5 m, a dip to 7 m, 100 s at 4.5 m: two stops of 100 s, not 200 s.
        let series = samples(from: 15, legs: [(70, 9), (100, 0), (10, -15), (10, 15), (100, 0), (30, 9)])
        let rule = Self.rule(series)
        #expect(rule.outcome == .missed)
        #expect(rule.longestStop < 150)
    }

    @Test("band, duration and depth limit are configurable")
    func configurableRule() {
        let configuration = SafetyStopRule.Configuration(requiredBeyond: 5, depth: 3, tolerance: 0.5, duration: 60)
        #expect(Self.rule(samples(from: 6, legs: [(20, 9), (70, 0), (20, 9)]), configuration).outcome == .completed)
        #expect(Self.rule(samples(from: 6, legs: [(20, 9), (50, 0), (20, 9)]), configuration).outcome == .missed)
        #expect(configuration.isInBand(2.5) && configuration.isInBand(3.5) && !configuration.isInBand(3.6))
    }

    // MARK: Through the deriver

    @Test("a fast ascent from 20 m publishes one ascent warning and, on surfacing, the safety-stop hint after the summary")
    func deriverFastAscent() throws {
        var feed = SubmersionFeed(maximumDepth: 40)
        feed.event(0, .notSubmerged)
        feed.event(10, .submerged)
        let series = samples(from: 0, legs: [(60, -20), (10, 0), (80, 15)])
        var surfacing: [OutboundMessage] = []
        for sample in series.dropFirst() { feed.measurement(10 + sample.date, depth: max(0, sample.depth)) }
        surfacing = feed.event(160, .notSubmerged)
        #expect(surfacing.map(\.topic) == ["gateway/dive-1/submersion/depth-state", "gateway/dive-1/submersion/dive", "gateway/dive-1/submersion/safety-stop"])

        let ascents = feed.messages("submersion/ascent-warning")
        try #require(ascents.count == 1)
        #expect(!ascents[0].retain && ascents[0].qos == .atLeastOnce)
        let warning = payload(ascents[0])
        #expect(warning["deviceId"] as? String == "dive-1")
        #expect(abs((number(warning, "ascentRate") ?? 0) - 15) < 5, "\(warning)")
        #expect(number(warning, "limit") == 10)
        #expect(number(warning, "window") == 3)
        #expect((number(warning, "fromDepth") ?? 0) > (number(warning, "depth") ?? 0))
        #expect((number(warning, "date") ?? 0) - (number(warning, "fromDate") ?? 0) >= 3)
        #expect(warning["eventId"] as? String == EventID.make("dive-1", "submersion/ascent-warning", String(describing: number(warning, "date") ?? 0)))

        let hint = payload(surfacing.last)
        #expect(hint["outcome"] as? String == "missed")
        #expect(abs((number(hint, "maxDepth") ?? 0) - 20) < 1e-9)
        #expect(number(hint, "requiredBeyond") == 10)
        #expect(number(hint, "stopDepth") == 4.5)
        #expect(number(hint, "stopTolerance") == 1.5)
        #expect(number(hint, "requiredDuration") == 180)
        #expect((number(hint, "longestStop") ?? 99) < 15, "3 m of band at 15 m/min is 12 s")
        #expect(number(hint, "startDate") == 10)
        #expect(number(hint, "endDate") == 160)
        #expect(number(hint, "date") == 160)
        #expect((hint["hint"] as? String)?.contains("safety stop at 3–6 m") == true, "\(hint)")
        let dive = payload(feed.messages("submersion/dive").first)
        #expect(dive["ascentWarnings"] as? Int == 1)
        #expect(dive["safetyStop"] as? String == "missed")
    }

    @Test("a dive with its safety stop surfaces without a hint")
    func deriverCompletedStop() {
        var feed = SubmersionFeed(maximumDepth: 40)
        feed.event(0, .submerged)
        for sample in samples(from: 0, legs: [(80, -9), (20, 0), (50, 9), (200, 0), (30, 9)]).dropFirst() {
            feed.measurement(sample.date, depth: max(0, sample.depth))
        }
        feed.event(400, .notSubmerged)
        #expect(feed.messages("submersion/safety-stop").isEmpty)
        #expect(feed.messages("submersion/ascent-warning").isEmpty)
        let dive = payload(feed.messages("submersion/dive").first)
        #expect(dive["safetyStop"] as? String == "completed")
        #expect((number(dive, "longestSafetyStop") ?? 0) >= 200)
    }

    @Test("a dive ended by silence gets no safety-stop hint")
    func silenceNoHint() {
        var configuration = SubmersionConfiguration()
        configuration.diveEndSilence = 10
        var feed = SubmersionFeed(maximumDepth: 40, configuration: configuration)
        feed.event(0, .submerged)
        feed.measurement(1, depth: 15)
        let ended = feed.tick(at: feed.receivedAt + 11)
        #expect(ended.count == 2)
        #expect(feed.messages("submersion/safety-stop").isEmpty)
        #expect(payload(feed.messages("submersion/dive").first)["safetyStop"] as? String == "missed")
    }
}
