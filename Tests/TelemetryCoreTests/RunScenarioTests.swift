import TelemetrySimulation
import Testing

@testable import TelemetryCore

/// The simulator's urban and trail runs through the deriver, compared with their ground truth
/// (the scripts' noiseless profiles).
///
/// Tolerances per segment, and why: dates exact (they are the events' dates); steps ±6 and
/// distance ±6 m (linear interpolation between 2.5 s updates cuts the corner where running
/// starts or stops: up to a quarter of an interval at each end, ≈ 2 steps and 2 m, plus
/// whole-step rounding); elevation change ±1 m and gain ±1.5 m (σ 0.1–0.3 m barometer noise
/// after a 5 s average, and ≈ 0.25 m lost by the average at each turning point of a climb);
/// pace ±2 %. Workout totals: the per-segment tolerances times the number of segments.
@Suite("Run scenarios: the deriver reproduces the ground truth")
struct RunScenarioTests {
    static let startDate = 1_700_000_000.0

    static func run(_ scenario: RunScenario, realTime: Bool = false) -> RunFeed {
        var feed = RunFeed(device: scenario.deviceId)
        feed.feed(scenario, startDate: startDate, realTime: realTime)
        return feed
    }

    static func check(_ scenario: RunScenario, _ feed: RunFeed) throws {
        let name = scenario.name
        let truth = scenario.expectedSegments(startDate: startDate)
        let segments = feed.segments
        try #require(segments.count == truth.count, "\(name): \(segments.count) segments, expected \(truth.count)")
        for (segment, expected) in zip(segments, truth) {
            let label = "\(name) #\(expected.index)"
            #expect(segment.number("index") == Double(expected.index), "\(label)")
            #expect(segment.number("startDate") == expected.startDate, "\(label)")
            #expect(segment.number("endDate") == expected.endDate, "\(label)")
            #expect(abs((segment.number("activeDuration") ?? 0) - expected.activeDuration) <= 0.001, "\(label)")
            #expect(abs((segment.number("steps") ?? -1) - expected.steps) <= 6, "\(label): steps \(segment.number("steps") ?? -1) vs \(expected.steps)")
            #expect(abs((segment.number("distance") ?? -1) - expected.distance) <= 6, "\(label): distance")
            #expect(abs((segment.number("averageActivePace") ?? 0) / expected.averageActivePace - 1) <= 0.02, "\(label): pace")
            #expect(abs((segment.number("elevationChange") ?? 99) - expected.elevationChange) <= 1, "\(label): change")
            #expect(abs((segment.number("elevationGain") ?? 99) - expected.elevationGain) <= 1.5, "\(label): gain")
            #expect(segment.jsonObject?["hill"] as? Bool == expected.hill, "\(label): hill")
            #expect(segment.string("completion") != "timeout", "\(label)")
        }
        // Segments closed by a pause event wait for, and get, the data covering their end.
        let closedByPause = scenario.phases.last.map { if case .pause = $0 { true } else { false } } ?? false
        #expect(segments.dropLast(closedByPause ? 0 : 1).allSatisfy { $0.string("completion") == "data" }, "\(name)")

        let expected = scenario.expectedWorkout(startDate: startDate)
        let count = Double(expected.segments)
        try #require(feed.workouts.count == 1, "\(name)")
        let summary = feed.workouts[0]
        #expect(feed.published.last == summary, "\(name): the summary comes last")
        #expect(summary.number("startDate") == expected.startDate && summary.number("endDate") == expected.endDate, "\(name)")
        #expect(summary.number("segments") == count, "\(name)")
        #expect(abs((summary.number("activeDuration") ?? 0) - expected.activeDuration) <= 0.001 * count, "\(name)")
        #expect(abs((summary.number("pausedDuration") ?? 0) - expected.pausedDuration) <= 0.001 * count, "\(name)")
        #expect(abs((summary.number("steps") ?? 0) - expected.steps) <= 6 * count, "\(name)")
        #expect(abs((summary.number("distance") ?? 0) - expected.distance) <= 6 * count, "\(name)")
        #expect(abs((summary.number("averageActivePace") ?? 0) / expected.averageActivePace - 1) <= 0.02, "\(name)")
        #expect(abs((summary.number("elevationGain") ?? 0) - expected.elevationGain) <= 1.5 * count, "\(name)")
        #expect(abs((summary.number("elevationChange") ?? 0) - expected.elevationChange) <= count, "\(name)")
        #expect(summary.number("lateEvents") == Double(scenario.expectedLateEvents), "\(name)")
        #expect(summary.number("duplicateEvents") == Double(scenario.expectedDuplicateEvents), "\(name)")
        #expect(summary.number("repeatedEvents") == 0, "\(name)")
    }

    @Test("urban runs: exact segments and dates, values within tolerance", arguments: Array(UInt64(1)...10))
    func urbanRun(seed: UInt64) throws {
        let scenario = RunScenario.urbanRun(seed: seed)
        #expect(scenario.expectedSegments(startDate: Self.startDate).filter(\.hill).count == 1, "one hill")
        try Self.check(scenario, Self.run(scenario))
    }

    @Test("trail runs: exact segments and dates, values within tolerance", arguments: Array(UInt64(1)...10))
    func trailRun(seed: UInt64) throws {
        let scenario = RunScenario.trailRun(seed: seed)
        let hills = scenario.expectedSegments(startDate: Self.startDate).map(\.hill)
        #expect(hills.contains(true) && hills.contains(false))
        try Self.check(scenario, Self.run(scenario))
    }

    @Test("arriving in real time (with ticks) or replayed at once gives the same messages", arguments: [UInt64(3), 4])
    func realTime(seed: UInt64) {
        for scenario in [RunScenario.urbanRun(seed: seed), RunScenario.trailRun(seed: seed)] {
            #expect(Self.run(scenario, realTime: true).published == Self.run(scenario).published, "\(scenario.name)")
        }
    }

    @Test("the clock anchor converges to the device's boot date from below")
    func clockAnchor() {
        for scenario in [RunScenario.urbanRun(seed: 5), RunScenario.trailRun(seed: 5)] {
            let estimate = Self.run(scenario).deriver.anchor.bootDate ?? 0
            let error = estimate - scenario.bootDate(startDate: Self.startDate)
            #expect(error <= 0.001 && error > -0.05, "\(scenario.name): \(error) s")
        }
    }

    @Test("the presets last about 20–30 (urban) and 20–45 minutes (trail) and are repeatable")
    func presets() {
        for seed in UInt64(1)...40 {
            let urban = RunScenario.urbanRun(seed: seed)
            let trail = RunScenario.trailRun(seed: seed)
            #expect((1_150...1_900).contains(urban.workoutEnd - urban.workoutStart), "\(urban.name): \(urban.workoutEnd) s")
            #expect((1_100...2_700).contains(trail.workoutEnd - trail.workoutStart), "\(trail.name): \(trail.workoutEnd) s")
        }
        let scenario = RunScenario.trailRun(seed: 9)
        #expect(scenario.frames(startDate: Self.startDate) == scenario.frames(startDate: Self.startDate))
        #expect(RunScenario.urbanRun(seed: 1).frames(startDate: Self.startDate) != RunScenario.urbanRun(seed: 2).frames(startDate: Self.startDate))
    }
}
