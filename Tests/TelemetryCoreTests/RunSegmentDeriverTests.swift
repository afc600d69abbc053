import Testing

@testable import TelemetryCore

/// A synthetic runner for the deriver tests: active between given dates (3 steps/s, 3.5 m/s),
/// altitude given as a function of the date, device booted at ``bootDate``.
private struct Runner {
    static let bootDate = 5_000.0
    /// Dates at which the runner starts and stops moving.
    var active: [ClosedRange<Double>]
    var altitude: (Double) -> Double = { _ in 0 }

    func activeSeconds(until date: Double) -> Double {
        active.reduce(0) { $0 + max(0, min(date, $1.upperBound) - $1.lowerBound) }
    }

    /// Sends, for each whole second in (from, to], a cumulative pedometer update on even
    /// seconds, then an altimeter sample (so the clock anchor is exact from the first update).
    func stream(_ feed: inout RunFeed, from: Double, to: Double) {
        var date = from + 1
        while date <= to {
            if Int(date) % 2 == 0 {
                let seconds = activeSeconds(until: date) - activeSeconds(until: 10_000)
                feed.data(date, steps: Int(3 * seconds), distance: 3.5 * seconds, start: 10_000)
            }
            feed.altitude(date - Self.bootDate, altitude(date))
            date += 1
        }
    }
}

@Suite("Run segment deriver: segments, summaries, timing")
struct RunSegmentDeriverTests {
    /// A 150 s workout: running 10 000–10 060, a stoplight until 10 090, running to 10 150.
    private static func stoplightRun() -> RunFeed {
        var feed = RunFeed()
        let runner = Runner(active: [10_000...10_060, 10_090...10_150])
        feed.workout(.running, 10_000)
        runner.stream(&feed, from: 10_000, to: 10_060)
        feed.event(10_060, .pause)
        runner.stream(&feed, from: 10_060, to: 10_090)
        feed.event(10_090, .resume)
        runner.stream(&feed, from: 10_090, to: 10_150)
        feed.workout(.ended, 10_150)
        return feed
    }

    @Test("the workout's start and end and the pause/resume events bound the segments; QoS 1, not retained")
    func segmentsFromEvents() throws {
        let feed = Self.stoplightRun()
        let segments = feed.segments
        try #require(segments.count == 2)
        for message in segments + feed.workouts {
            #expect(message.qos == .atLeastOnce && !message.retain && message.contentType == "application/json")
        }
        #expect(segments.map { $0.number("startDate") } == [10_000, 10_090])
        #expect(segments.map { $0.number("endDate") } == [10_060, 10_150])
        #expect(segments.map { $0.number("index") } == [1, 2])
        #expect(segments.map { $0.number("activeDuration") } == [60, 60])
        #expect(segments.map { $0.number("steps") } == [180, 180])
        #expect(segments.map { $0.number("distance") } == [210, 210])
        #expect(segments.map { $0.number("averageActivePace") } == [0.2857, 0.2857])
        #expect(segments.map { $0.string("completion") } == ["data", "data"])
        #expect(segments[0].string("deviceId") == "run-1")
        #expect(segments[0].number("workoutStartDate") == 10_000)
        #expect(segments[0].number("date") == 10_060)
        #expect(segments[0].topic == "gateway/run-1/pedometer/segment")
        #expect(Set(segments.compactMap { $0.string("eventId") }).count == 2)
        #expect(feed.published.last?.topic == "gateway/run-1/pedometer/workout", "the summary comes after the last segment")
    }

    @Test("the first segment is published as soon as data covering its end arrived, not at the next resume")
    func publishedOnCoverage() {
        var feed = RunFeed()
        let runner = Runner(active: [10_000...10_060])
        feed.workout(.running, 10_000)
        runner.stream(&feed, from: 10_000, to: 10_059)
        feed.event(10_060, .pause)
        #expect(feed.segments.isEmpty, "pedometer data up to 10 058, altitude up to 10 059")
        feed.altitude(10_061 - Runner.bootDate, 0)
        #expect(feed.segments.isEmpty, "an altimeter sample after the pause, but no pedometer update yet")
        feed.data(10_062, steps: 180, distance: 210, start: 10_000)
        #expect(feed.segments.count == 1)
        #expect(feed.segments.first?.number("steps") == 177, "174 at 10 058, 180 at 10 062: 177 at 10 060 by interpolation")
    }

    @Test("the summary: active and paused time, totals, pace over active time only, event counts")
    func workoutSummary() throws {
        let feed = Self.stoplightRun()
        try #require(feed.workouts.count == 1)
        let summary = feed.workouts[0]
        #expect(summary.topic == "gateway/run-1/pedometer/workout")
        #expect(summary.string("activityType") == "running")
        #expect(summary.number("startDate") == 10_000 && summary.number("endDate") == 10_150 && summary.number("date") == 10_150)
        #expect(summary.number("activeDuration") == 120)
        #expect(summary.number("pausedDuration") == 30)
        #expect(summary.number("segments") == 2)
        #expect(summary.number("steps") == 360)
        #expect(summary.number("distance") == 420)
        // 120 s / 420 m; over the whole workout it would be 150 s / 420 m = 0.3571.
        #expect(summary.number("averageActivePace") == 0.2857)
        #expect(summary.number("elevationGain") == 0 && summary.number("elevationChange") == 0)
        #expect(summary.number("lateEvents") == 0 && summary.number("duplicateEvents") == 0 && summary.number("repeatedEvents") == 0)
        #expect(summary.string("eventId")?.count == 16)
        #expect(feed.deriver.workoutStartDate == nil, "the workout's state is dropped when it ends")
    }

    @Test("a pause that arrives after the following resume still closes the segment at its own date")
    func outOfOrderPause() throws {
        var feed = RunFeed()
        let runner = Runner(active: [10_000...10_060, 10_090...10_150])
        feed.workout(.running, 10_000)
        runner.stream(&feed, from: 10_000, to: 10_090)
        feed.event(10_090, .resume)  // the pause at 10 060 is still on its way
        #expect(feed.segments.isEmpty)
        feed.event(10_060, .pause)
        try #require(feed.segments.count == 1, "complete at once: data up to 10 090 covers 10 060")
        #expect(feed.segments[0].number("endDate") == 10_060)
        #expect(feed.segments[0].number("steps") == 180)
        runner.stream(&feed, from: 10_090, to: 10_150)
        feed.workout(.ended, 10_150)
        #expect(feed.segments.map { $0.number("startDate") } == [10_000, 10_090])
        #expect(feed.deriver.counters.repeatedResumes == 0, "read by date, the resume follows the pause")
    }

    @Test("duplicates, repeats and late events are ignored and counted, by date")
    func ignoredEvents() throws {
        var feed = RunFeed()
        let runner = Runner(active: [10_000...10_060, 10_090...10_150])
        feed.workout(.running, 10_000)
        feed.event(10_000, .resume)  // the same instant as the workout's start: a duplicate
        runner.stream(&feed, from: 10_000, to: 10_030)
        feed.event(10_030, .resume)  // a resume while active: a repeat
        runner.stream(&feed, from: 10_030, to: 10_060)
        feed.event(10_060, .pause)
        feed.event(10_060, .pause)  // a redelivery: a duplicate
        runner.stream(&feed, from: 10_060, to: 10_070)
        try #require(feed.segments.count == 1)
        feed.event(10_070, .pause)  // a pause while paused: a repeat
        feed.event(10_050, .pause)  // before the published end: late, cannot reopen or shorten it
        feed.event(10_055, .resume)  // late as well
        runner.stream(&feed, from: 10_070, to: 10_090)
        feed.event(10_090, .resume)
        runner.stream(&feed, from: 10_090, to: 10_150)
        feed.workout(.ended, 10_150)
        feed.event(10_155, .pause)  // after the workout: outside
        #expect(feed.segments.map { $0.number("startDate") } == [10_000, 10_090])
        #expect(feed.segments.map { $0.number("endDate") } == [10_060, 10_150])
        let counters = feed.deriver.counters
        #expect(counters.duplicateEvents == 2)
        #expect(counters.repeatedResumes == 1 && counters.repeatedPauses == 1)
        #expect(counters.lateEvents == 2)
        #expect(counters.eventsOutsideWorkout == 1)
        let summary = try #require(feed.workouts.first)
        #expect(summary.number("duplicateEvents") == 2 && summary.number("repeatedEvents") == 2 && summary.number("lateEvents") == 2)
    }

    @Test("a late resume turns a repeated pause into the end of a segment")
    func lateResume() {
        var feed = RunFeed()
        feed.workout(.running, 10_000)
        feed.event(10_040, .pause)
        feed.event(10_060, .pause)  // repeat while paused, read by date
        feed.event(10_050, .resume)  // arrives late, but after the published end (10 040)
        feed.workout(.ended, 10_100)
        #expect(feed.segments.map { $0.number("startDate") } == [10_000, 10_050])
        #expect(feed.segments.map { $0.number("endDate") } == [10_040, 10_060])
        #expect(feed.deriver.counters.repeatedPauses == 0)
        #expect(feed.workouts.first?.number("pausedDuration") == 50)
    }

    @Test("steps and distance are interpolated between updates at the segment's bounds")
    func interpolation() throws {
        var feed = RunFeed()
        feed.workout(.running, 10_000)
        feed.data(10_010, steps: 30, distance: 35, start: 10_000)
        feed.data(10_020, steps: 60, distance: 70, start: 10_000)
        feed.event(10_015, .pause)  // between the updates: 45 steps, 52.5 m
        feed.data(10_025, steps: 60, distance: 70, start: 10_000)
        feed.event(10_025, .resume)
        feed.data(10_030, steps: 75, distance: 87.5, start: 10_000)
        // The app restarted its updates: a new cumulative series from 10 032.5.
        feed.data(10_035, steps: 8, distance: 9, start: 10_032.5)
        feed.data(10_040, steps: 20, distance: 23, start: 10_032.5)
        feed.workout(.ended, 10_040)
        try #require(feed.segments.count == 2)
        #expect(feed.segments[0].number("steps") == 45 && feed.segments[0].number("distance") == 52.5)
        // 10 025 → 10 040: 15 steps to 10 030, none until the new series starts, 20 in it.
        #expect(feed.segments[1].number("steps") == 35 && feed.segments[1].number("distance") == 40.5)
        #expect(feed.deriver.counters.pedometerRestarts == 1)
        feed.data(10_039, steps: 25, start: 10_032.5)
        #expect(feed.deriver.counters.stalePedometerUpdates == 1)
    }

    @Test("a segment without distance has no pace; without pedometer data no steps")
    func missingValues() throws {
        var feed = RunFeed()
        feed.workout(.running, 10_000)
        feed.event(10_030, .pause)
        feed.workout(.ended, 10_040)
        let segment = try #require(feed.segments.first)
        #expect(segment.number("activeDuration") == 30)
        #expect(segment.jsonObject?["steps"] == nil && segment.jsonObject?["distance"] == nil && segment.jsonObject?["averageActivePace"] == nil)
        #expect(segment.jsonObject?["elevationGain"] == nil && segment.jsonObject?["hill"] == nil)
        #expect(segment.string("completion") == "data", "no stream to wait for")
        let summary = try #require(feed.workouts.first)
        #expect(summary.jsonObject?["distance"] == nil && summary.jsonObject?["averageActivePace"] == nil)
        #expect(summary.number("pausedDuration") == 10)
    }

    @Test("a closed segment waits for its data at most finalizeTimeout seconds of gateway time")
    func finalizeTimeout() throws {
        var configuration = RunConfiguration()
        configuration.finalizeTimeout = 10
        var feed = RunFeed(configuration: configuration)
        let runner = Runner(active: [10_000...10_060])
        feed.workout(.running, 10_000)
        runner.stream(&feed, from: 10_000, to: 10_059)
        feed.receivedAt = 50_000
        feed.event(10_060, .pause)  // arrives at 50 000.1; the data after it never comes
        #expect(feed.tick(at: 50_010).isEmpty, "9.9 s waited")
        let published = feed.tick(at: 50_010.2)
        try #require(published.count == 1)
        #expect(published[0].string("completion") == "timeout")
        #expect(published[0].number("endDate") == 10_060)
        #expect(published[0].number("steps") == 174, "the last update (10 058) is all there is")
        #expect(feed.deriver.counters.timedOutSegments == 1)
        #expect(feed.tick(at: 60_000).isEmpty, "published once")
    }

    @Test("the workout's end publishes a segment still waiting for data, then the summary")
    func endFinalizes() throws {
        var feed = RunFeed()
        let runner = Runner(active: [10_000...10_060])
        feed.workout(.running, 10_000)
        runner.stream(&feed, from: 10_000, to: 10_059)
        let messages = feed.workout(.ended, 10_060)
        try #require(messages.count == 2)
        #expect(messages[0].string("completion") == "workoutEnd")
        #expect(messages[1].topic.hasSuffix("pedometer/workout"))
    }

    @Test("elevation change and gain per segment: the dead band keeps barometer noise out, a climb counts in full")
    func elevation() throws {
        // Flat for 100 s with ±0.4 m noise, a 12 m climb over 60 s, flat at the top with noise.
        func altitude(_ date: Double) -> Double {
            let noise = [0.4, -0.3, 0.1, -0.4, 0.3][Int(date) % 5]
            return min(max(date - 10_100, 0), 60) * 0.2 + noise
        }
        var configuration = RunConfiguration()
        configuration.altitudeSmoothing = 0  // the dead band alone
        func run(_ configuration: RunConfiguration) -> [OutboundMessage] {
            var feed = RunFeed(configuration: configuration)
            let runner = Runner(active: [10_000...10_100, 10_100...10_250], altitude: altitude)
            feed.workout(.running, 10_000)
            runner.stream(&feed, from: 10_000, to: 10_100)
            feed.event(10_100, .pause)
            feed.event(10_100, .resume)
            runner.stream(&feed, from: 10_100, to: 10_250)
            feed.workout(.ended, 10_250)
            return feed.segments
        }
        let segments = run(configuration)
        try #require(segments.count == 2)
        #expect(segments[0].number("elevationGain") == 0, "flat with 0.8 m of noise: nothing climbed")
        #expect(segments[0].jsonObject?["hill"] as? Bool == false)
        let gain = try #require(segments[1].number("elevationGain"))
        #expect(abs(gain - 12) <= 0.8, "the climb, within the noise")
        #expect(segments[1].jsonObject?["hill"] as? Bool == true)
        let change = try #require(segments[1].number("elevationChange"))
        #expect(abs(change - 12) <= 0.8)

        configuration.elevationDeadband = 0
        let noisy = run(configuration)
        #expect((noisy[0].number("elevationGain") ?? 0) > 5, "without a dead band the noise accumulates")

        configuration.elevationDeadband = 1
        configuration.hillHeight = 15
        #expect(run(configuration)[1].jsonObject?["hill"] as? Bool == false, "a 12 m climb is no hill at 15 m")
    }

    @Test("smoothing averages the noise before the dead band")
    func smoothing() {
        let altitudes = (0..<200).map { [0.6, -0.6][$0 % 2] }
        var track = AltitudeTrack(capacity: 1_000)
        for (second, altitude) in altitudes.enumerated() {
            _ = track.receive(AltitudeSample(timestamp: Double(second), relativeAltitude: altitude, pressure: 100), keep: true)
        }
        #expect(track.elevation(from: 0, to: 199, smoothing: 0, deadband: 1)?.gain ?? 0 > 50, "1.2 m swings pass a 1 m dead band")
        #expect(track.elevation(from: 0, to: 199, smoothing: 4, deadband: 1)?.gain == 0)
        #expect(track.elevation(from: 300, to: 400, smoothing: 4, deadband: 1) == nil, "no sample inside")
    }

    @Test("only workouts of the configured activity types have segments")
    func activityTypes() {
        var feed = RunFeed()
        feed.workout(.running, 10_000, activityType: "tennis")
        feed.event(10_030, .pause)
        feed.workout(.ended, 10_040, activityType: "tennis")
        #expect(feed.published.isEmpty)
        #expect(feed.deriver.counters.eventsOutsideWorkout == 1)

        var configuration = RunConfiguration()
        configuration.activityTypes = []
        var any = RunFeed(configuration: configuration)
        any.workout(.running, 10_000, activityType: "tennis")
        any.workout(.ended, 10_040, activityType: "tennis")
        #expect(any.segments.count == 1 && any.workouts.count == 1)
    }

    @Test("a running frame of an open workout (after its session paused) does not start a new one")
    func sessionPauseAndResume() {
        var feed = RunFeed()
        feed.workout(.running, 10_000)
        feed.workout(.paused, 10_020)
        feed.workout(.running, 10_030)
        feed.workout(.ended, 10_050)
        #expect(feed.segments.map { $0.number("startDate") } == [10_000])
        #expect(feed.workouts.first?.number("startDate") == 10_000)
    }

    @Test("the same input gives the same event ids")
    func eventIDs() {
        let first = Self.stoplightRun().published.map { $0.string("eventId") }
        let second = Self.stoplightRun().published.map { $0.string("eventId") }
        #expect(first == second)
        #expect(Set(first).count == first.count)
    }

    @Test("memory is bounded: pending events and altimeter samples")
    func bounded() {
        var configuration = RunConfiguration()
        configuration.maxPendingEvents = 4
        configuration.maxAltitudeSamples = 50
        var feed = RunFeed(configuration: configuration)
        feed.workout(.running, 10_000)
        feed.data(10_000.5, steps: 0, start: 10_000)  // segments now wait for a covering update that never comes
        for second in 1...10 { feed.event(10_000 + Double(second), second % 2 == 0 ? .resume : .pause) }
        #expect(feed.deriver.counters.droppedEvents == 7, "the implicit resume and 3 events fill the list")
        for second in 0..<200 { feed.altitude(Double(second), 0) }
        #expect(feed.deriver.droppedSamples.altitudeSamples == 150)
    }

    @Test("configuration problems")
    func configurationProblems() {
        #expect(RunConfiguration().configurationProblem == nil)
        var configuration = RunConfiguration()
        configuration.finalizeTimeout = -.infinity
        #expect(configuration.configurationProblem?.contains("finalizeTimeout") == true)
        configuration = RunConfiguration()
        configuration.maxAltitudeSamples = 1
        #expect(configuration.configurationProblem?.contains("maxAltitudeSamples") == true)
    }
}
