/// The state of one open workout of a tracked activity type: its pending events and the totals
/// of the segments published so far.
struct RunWorkout: Sendable {
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

    /// Opens a workout.
    /// - Parameters:
    ///   - event: the `running` frame.
    ///   - receivedAt: when it arrived, gateway clock.
    ///   - configuration: the settings.
    ///   - counters: the device's counters now.
    init(_ event: WorkoutEvent, receivedAt: Double, configuration: RunConfiguration, counters: RunCounters) {
        timeline = RunTimeline(start: event.date, receivedAt: receivedAt, capacity: configuration.maxPendingEvents)
        summary = RunWorkoutSummary(activityType: event.activityType, startDate: event.date)
        countersAtStart = counters
    }

    /// The start date.
    var startDate: Double { summary.startDate }
}
