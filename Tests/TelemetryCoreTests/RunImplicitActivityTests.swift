import Testing

@testable import TelemetryCore

/// Run segments from CMPedometer pause/resume events alone (no HealthKit workout): an implicit
/// activity per device, closed after `derivation.run.idleTimeout` paused.
@Suite("Run segments without a workout")
struct RunImplicitActivityTests {
    @Test("pedometer events alone give their segments with the workout's fields, and no summary")
    func segmentsWithoutWorkout() throws {
        var feed = RunFeed()
        feed.data(10_000, steps: 0, distance: 0, start: 10_000)
        feed.event(10_000, .resume)
        feed.data(10_060, steps: 150, distance: 180, start: 10_000)
        feed.event(10_060, .pause)
        feed.event(10_090, .resume)
        feed.data(10_150, steps: 300, distance: 360, start: 10_000)
        feed.event(10_150, .pause)
        let segments = feed.segments
        try #require(segments.count == 2)
        #expect(segments.map { $0.number("startDate") } == [10_000, 10_090])
        #expect(segments.map { $0.number("endDate") } == [10_060, 10_150])
        #expect(segments.map { $0.number("index") } == [1, 2])
        #expect(segments.map { $0.number("workoutStartDate") } == [10_000, 10_000], "the implicit activity's first resume")
        #expect(segments.map { $0.number("steps") } == [150, 100])
        #expect(feed.workouts.isEmpty, "no HealthKit workout, no summary")
        #expect(feed.deriver.counters.eventsOutsideWorkout == 0)
    }

    @Test("the activity closes after the idle timeout paused (not before, the limit included); a resume then opens a new one")
    func idleTimeout() throws {
        var configuration = RunConfiguration()
        configuration.idleTimeout = 300
        var feed = RunFeed(configuration: configuration)
        // Gateway times where adding 300 s is exact in binary floating point.
        feed.receivedAt = 3_000
        feed.event(10_000, .resume)
        feed.event(10_060, .pause)
        let pausedAt = feed.receivedAt
        #expect(feed.deriver.workoutStartDate == 10_000)
        feed.tick(at: pausedAt + 299.9)
        #expect(feed.deriver.workoutStartDate == 10_000, "299.9 s paused: still open")
        feed.tick(at: pausedAt + 300)
        #expect(feed.deriver.workoutStartDate == nil, "exactly the timeout: closed")
        #expect(feed.segments.count == 1)
        feed.event(20_000, .resume)
        feed.event(20_030, .pause)
        #expect(feed.segments.map { $0.number("index") } == [1, 1], "a new activity numbers from 1")
        #expect(feed.segments.last?.number("workoutStartDate") == 20_000)
    }

    @Test("an active implicit activity never times out: a runner who does not stop sends no events")
    func activeStaysOpen() {
        var feed = RunFeed()
        feed.event(10_000, .resume)
        feed.tick(at: 100_000)
        #expect(feed.deriver.workoutStartDate == 10_000)
        feed.event(13_600, .pause)
        #expect(feed.segments.map { $0.number("endDate") } == [13_600])
    }

    @Test("a pause with nothing open, and events during a tennis workout, stay outside")
    func outside() {
        var feed = RunFeed()
        feed.event(10_000, .pause)
        #expect(feed.deriver.counters.eventsOutsideWorkout == 1)
        #expect(feed.deriver.workoutStartDate == nil)
        feed.workout(.running, 10_100, activityType: "tennis")
        feed.event(10_110, .resume)
        feed.event(10_120, .pause)
        #expect(feed.published.isEmpty)
        #expect(feed.deriver.counters.eventsOutsideWorkout == 3)
        feed.workout(.ended, 10_200, activityType: "tennis")
        feed.event(10_210, .resume)
        #expect(feed.deriver.workoutStartDate == 10_210, "after the tennis workout, events count again")
    }

    @Test("a workout that starts during an implicit activity closes it there, then groups its own segments with a summary")
    func workoutTakesOver() throws {
        var feed = RunFeed()
        feed.event(10_000, .resume)
        feed.event(10_060, .pause)
        feed.event(10_070, .resume)
        feed.workout(.running, 10_100)
        #expect(feed.segments.map { $0.number("endDate") } == [10_060, 10_100], "the open segment ends at the workout's start")
        feed.event(10_160, .pause)
        feed.workout(.ended, 10_200)
        #expect(feed.segments.map { $0.number("workoutStartDate") } == [10_000, 10_000, 10_100])
        let summary = try #require(feed.workouts.first)
        #expect(summary.number("segments") == 1)
        #expect(summary.number("startDate") == 10_100)
    }

    @Test("reordered events inside an implicit activity are read by date")
    func reordered() {
        var feed = RunFeed()
        feed.event(10_000, .resume)
        feed.event(10_090, .resume)
        feed.event(10_060, .pause)  // arrives after the resume that follows it
        feed.event(10_150, .pause)
        #expect(feed.segments.map { $0.number("startDate") } == [10_000, 10_090])
        #expect(feed.segments.map { $0.number("endDate") } == [10_060, 10_150])
    }
}
