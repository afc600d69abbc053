/// The state of one open workout of a tracked activity type: its pending events and the totals
/// of the segments published so far.
struct RunWorkout: Sendable, Codable {
    /// The pending pause/resume events (the workout's start is the first resume).
    var timeline: RunTimeline
    /// Totals of the published segments; completed when the workout ends.
    var summary: RunWorkoutSummary
    /// Whether a `pedometer/data` update arrived during the workout (segments then wait for one
    /// covering their end).
    var hasPedometerData = false
    /// Whether an altimeter sample arrived during the workout (segments then wait for one
    /// covering their end).
    var hasAltitude = false
    /// The device's counters when the workout started, for the summary's event counts.
    let countersAtStart: RunCounters
    /// Whether this is an implicit activity opened by a pedometer `resume` without a workout
    /// (no summary; closed after ``RunConfiguration/idleTimeout`` paused).
    let implicit: Bool
    /// When the gateway received the latest pedometer event of the workout (the idle timeout).
    var lastEventAt: Double

    /// Opens a workout.
    /// - Parameters:
    ///   - event: the `running` frame.
    ///   - receivedAt: when it arrived, gateway clock.
    ///   - configuration: the settings.
    ///   - counters: the device's counters now.
    init(_ event: WorkoutEvent, receivedAt: Double, configuration: RunConfiguration, counters: RunCounters) {
        timeline = RunTimeline(start: event.date, receivedAt: receivedAt, capacity: configuration.maxPendingEvents)
        summary = RunWorkoutSummary(activityType: event.activityType ?? "", startDate: event.date)
        countersAtStart = counters
        implicit = false
        lastEventAt = receivedAt
    }

    /// Opens an implicit activity at a pedometer `resume` (no HealthKit workout).
    /// - Parameters:
    ///   - resume: the event's date.
    ///   - receivedAt: when it arrived, gateway clock.
    ///   - configuration: the settings.
    ///   - counters: the device's counters now.
    init(implicitAt resume: Double, receivedAt: Double, configuration: RunConfiguration, counters: RunCounters) {
        timeline = RunTimeline(start: resume, receivedAt: receivedAt, capacity: configuration.maxPendingEvents)
        summary = RunWorkoutSummary(activityType: "", startDate: resume)
        countersAtStart = counters
        implicit = true
        lastEventAt = receivedAt
    }

    /// The start date.
    var startDate: Double { summary.startDate }
}
