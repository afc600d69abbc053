/// Derives a device's run segments and workout summaries from its `workout`, `pedometer/event`,
/// `pedometer/data` and `altimeter` frames.
///
/// | topic | retained | QoS | when |
/// |---|---|---|---|
/// | `gateway/{id}/pedometer/segment` | no | 1 | a segment (resume → pause) is complete (``RunSegment``) |
/// | `gateway/{id}/pedometer/workout` | no | 1 | the workout ended, after its last segment (``RunWorkoutSummary``) |
///
/// Only workouts of ``RunConfiguration/activityTypes`` have segments. A workout's first
/// `running` frame acts as a resume at its date and its `ended` frame as a pause at its date.
/// Without a workout (an iPhone app using CMPedometer events, no HealthKit session), a `resume`
/// opens an implicit activity whose segments have the same fields (`workoutStartDate` is the
/// activity's first resume) but no summary; it closes once paused for
/// ``RunConfiguration/idleTimeout`` s of gateway time, or when a workout starts.
/// Events are read by date, not by arrival (``RunTimeline``): redeliveries, resumes while active
/// and pauses while paused are ignored, and an event dated before a published segment's end is
/// late and cannot reopen it (all counted in ``counters``).
///
/// A closed segment is published once data covering its end has arrived (a pedometer update and
/// an altimeter sample at or after the pause), once it has waited
/// ``RunConfiguration/finalizeTimeout`` s of gateway time, or when the workout ends. Steps and
/// distance come from the cumulative pedometer updates interpolated at the segment's bounds
/// (``PedometerSeries``); elevation from the altimeter samples inside it, mapped from
/// boot-relative timestamps to dates with the ``DeviceClockAnchor``. Rules, limits and payload
/// examples: `docs/run-segments.md`.
///
/// Pure: no clock (``tick(now:context:)`` brings the time for the timeout), no I/O. Memory is
/// bounded by the configuration's maxima; a workout's state is dropped when it ends.
public struct RunSegmentDeriver: Sendable, Codable {
    /// The settings.
    public let configuration: RunConfiguration
    /// The device's boot-to-wall-clock mapping, refined by every frame.
    public private(set) var anchor = DeviceClockAnchor()
    /// Ignored and dropped inputs, cumulative.
    public private(set) var counters = RunCounters()
    /// The open workout or implicit activity, if any.
    private var workout: RunWorkout?
    /// Whether a workout of an untracked activity type (tennis, diving) runs: its pedometer
    /// events open no implicit activity.
    private var otherWorkoutRunning = false
    private var pedometer: PedometerSeries
    private var altitude: AltitudeTrack

    /// Seconds of altimeter samples kept before a published segment's end, so a later, better
    /// clock anchor (it only moves later, by at most about one update interval) still finds
    /// every sample of the next segment.
    private static let anchorMargin = 60.0

    /// Creates the state of a device seen for the first time.
    /// - Parameter configuration: the settings; check ``RunConfiguration/configurationProblem`` first.
    public init(configuration: RunConfiguration = RunConfiguration()) {
        self.configuration = configuration
        pedometer = PedometerSeries(capacity: configuration.maxPedometerUpdates)
        altitude = AltitudeTrack(capacity: configuration.maxAltitudeSamples)
    }

    /// The start of the open workout of a tracked activity type, if any.
    public var workoutStartDate: Double? { workout?.startDate }
    /// Whether a workout (explicit or implicit) is open: its segments complete on ticks.
    public var hasOpenWorkout: Bool { workout != nil }

    /// Pedometer updates and altimeter samples dropped because their buffers were full, cumulative.
    public var droppedSamples: (pedometerUpdates: Int, altitudeSamples: Int) { (pedometer.dropped, altitude.dropped) }

    /// Feeds one accepted frame; frames of other streams are ignored.
    /// - Parameters:
    ///   - frame: the decoded frame.
    ///   - context: the device and the arrival time (the gateway clock for the timeout).
    /// - Returns: the segments and summary to publish, in order.
    public mutating func receive(_ frame: DecodedFrame, context: DerivationContext) -> [OutboundMessage] {
        switch frame {
        case .workout(let event, _):
            anchor.observe(date: event.date)
            switch event.state {
            case .running:
                var messages: [OutboundMessage] = []
                if workout?.implicit == true {
                    // The workout takes over: the implicit activity ends where the workout starts.
                    messages = end(at: max(event.date, workout!.timeline.frozenUntil), context: context)
                }
                start(event, receivedAt: context.receivedAt)
                return messages + publishCompleted(now: context.receivedAt, context: context)
            case .ended:
                otherWorkoutRunning = false
                guard workout?.implicit == false else { return [] }
                return end(at: event.date, context: context)
            case .paused: break  // pedometer events bound the segments, not the session's pause
            }
        case .pedometerEvent(let event, _):
            anchor.observe(date: event.date)
            record(event, receivedAt: context.receivedAt)
        case .pedometerData(let data, _):
            anchor.observe(date: data.endDate)
            record(data)
        case .altimeter(let sample, _):
            record(sample)
        default:
            return []
        }
        return publishCompleted(now: context.receivedAt, context: context)
    }

    /// Publishes the closed segments that waited ``RunConfiguration/finalizeTimeout``.
    /// - Parameters:
    ///   - now: the gateway's time, Unix epoch seconds.
    ///   - context: the device's context.
    /// - Returns: the segments to publish.
    public mutating func tick(now: Double, context: DerivationContext) -> [OutboundMessage] {
        var messages = publishCompleted(now: now, context: context)
        if let open = workout, open.implicit, open.timeline.openStart == nil, now - open.lastEventAt >= configuration.idleTimeout {
            let lastDate = open.timeline.entries.last?.date ?? open.timeline.frozenUntil
            messages += end(at: lastDate, context: context)
        }
        return messages
    }

    // MARK: Inputs

    private mutating func start(_ event: WorkoutEvent, receivedAt: Double) {
        // A running frame of an open workout resumes its session; it does not start a new one.
        guard workout == nil, let activityType = event.activityType else { return }
        guard configuration.tracks(activityType: activityType) else {
            // Tennis, diving, …: their pedometer events open no implicit activity either.
            otherWorkoutRunning = true
            return
        }
        workout = RunWorkout(event, receivedAt: receivedAt, configuration: configuration, counters: counters)
        pedometer.forget(before: event.date)
    }

    private mutating func record(_ event: PedometerEvent, receivedAt: Double) {
        if workout == nil, event.type == .resume, !otherWorkoutRunning {
            // CMPedometer events without a HealthKit workout (an iPhone app): an implicit activity.
            workout = RunWorkout(implicitAt: event.date, receivedAt: receivedAt, configuration: configuration, counters: counters)
            pedometer.forget(before: event.date)
            return
        }
        guard workout != nil else {
            // A pause with no activity open: its segment's start is unknown.
            counters.eventsOutsideWorkout += 1
            return
        }
        workout!.lastEventAt = receivedAt
        switch workout!.timeline.insert(RunTimeline.Entry(date: event.date, type: event.type, receivedAt: receivedAt)) {
        case .inserted: break
        case .duplicate: counters.duplicateEvents += 1
        case .late: counters.lateEvents += 1
        case .overflow: counters.droppedEvents += 1
        }
    }

    private mutating func record(_ data: PedometerData) {
        switch pedometer.receive(data) {
        case .applied: break
        case .restarted: counters.pedometerRestarts += 1
        case .stale:
            counters.stalePedometerUpdates += 1
            return
        }
        if workout == nil {
            pedometer.forget(before: data.endDate)  // outside workouts only the latest value matters
        } else {
            workout!.hasPedometerData = true
        }
    }

    private mutating func record(_ sample: AltitudeSample) {
        switch altitude.receive(sample, keep: workout != nil) {
        case .kept: break
        case .stale:
            counters.staleAltitudeSamples += 1
            return
        case .restarted:
            counters.altimeterRestarts += 1
            anchor.reset()
        }
        anchor.observe(timestamp: sample.timestamp)
        workout?.hasAltitude = true
    }

    // MARK: Publishing

    /// Publishes the closed segments, oldest first, while each is complete (or `force`).
    private mutating func publishCompleted(now: Double, context: DerivationContext, force: Bool = false) -> [OutboundMessage] {
        var messages: [OutboundMessage] = []
        while let closed = workout?.timeline.firstClosed {
            let completion: RunSegment.Completion
            if covers(closed.end) {
                completion = .data
            } else if force {
                completion = .workoutEnd
            } else if now - closed.closedAt >= configuration.finalizeTimeout {
                completion = .timeout
                counters.timedOutSegments += 1
            } else {
                break
            }
            if let segment = publish(closed, completion: completion) {
                messages.append(Self.segmentMessage(segment, context: context))
            }
        }
        return messages
    }

    /// Whether the data covering `date` has arrived: a pedometer update and an altimeter sample
    /// at or after it (each only when the workout has that stream at all).
    private func covers(_ date: Double) -> Bool {
        guard let workout else { return false }
        if workout.hasPedometerData, !(pedometer.lastDate.map { $0 >= date } ?? false) { return false }
        if workout.hasAltitude {
            guard let last = altitude.lastSampleTimestamp, let lastDate = anchor.date(ofTimestamp: last), lastDate >= date else { return false }
        }
        return true
    }

    /// Measures a closed segment, consumes its events and adds it to the workout's summary.
    /// - Returns: the segment, or nil when it has no duration.
    private mutating func publish(_ closed: RunTimeline.Closed, completion: RunSegment.Completion) -> RunSegment? {
        guard var open = workout else { return nil }
        countRepeats(in: open.timeline, through: closed.position)
        open.timeline.consume(closed)
        defer { workout = open }
        guard closed.end > closed.start else {
            counters.emptySegments += 1
            return nil
        }
        var segment = RunSegment(
            index: open.summary.segments + 1, workoutStartDate: open.startDate, startDate: closed.start, endDate: closed.end, completion: completion)
        if open.hasPedometerData, let first = pedometer.value(at: closed.start), let last = pedometer.value(at: closed.end) {
            segment.steps = Int((last.steps - first.steps).rounded())
            segment.distance = first.distance.flatMap { start in last.distance.map { $0 - start } }
        }
        if let start = anchor.timestamp(ofDate: closed.start), let end = anchor.timestamp(ofDate: closed.end) {
            let elevation = altitude.elevation(
                from: start, to: end, smoothing: configuration.altitudeSmoothing, deadband: configuration.elevationDeadband)
            segment.elevationChange = elevation?.change
            segment.elevationGain = elevation?.gain
            segment.hill = elevation.map { $0.gain >= configuration.hillHeight }
            altitude.forget(before: end - Self.anchorMargin)
        }
        pedometer.forget(before: closed.end)
        open.summary.add(segment)
        return segment
    }

    /// Counts the repeated resumes and pauses among the events up to `position`.
    private mutating func countRepeats(in timeline: RunTimeline, through position: Int) {
        let repeats = timeline.repeats(through: position)
        counters.repeatedResumes += repeats.resumes
        counters.repeatedPauses += repeats.pauses
    }

    /// Ends the open workout (or implicit activity) at `date`: closes its open segment,
    /// publishes every closed one, then the summary (workouts only).
    private mutating func end(at date: Double, context: DerivationContext) -> [OutboundMessage] {
        guard workout != nil else { return [] }
        counters.eventsOutsideWorkout += workout!.timeline.end(at: date, receivedAt: context.receivedAt)
        var messages = publishCompleted(now: context.receivedAt, context: context, force: true)
        guard var summary = workout?.summary, let open = workout else { return messages }
        guard !open.implicit else {
            if let last = open.timeline.entries.indices.last { countRepeats(in: open.timeline, through: last) }
            workout = nil
            altitude.removeAll()
            pedometer.forget(before: date)
            return messages
        }
        if let last = open.timeline.entries.indices.last {
            // What no segment consumed: repeats after the last pause, or a resume at the very end.
            countRepeats(in: open.timeline, through: last)
            if open.timeline.openStart != nil { counters.emptySegments += 1 }
        }
        summary.endDate = max(date, summary.startDate)
        summary.lateEvents = counters.lateEvents - open.countersAtStart.lateEvents
        summary.duplicateEvents = counters.duplicateEvents - open.countersAtStart.duplicateEvents
        summary.repeatedEvents =
            counters.repeatedResumes + counters.repeatedPauses - open.countersAtStart.repeatedResumes - open.countersAtStart.repeatedPauses
        messages.append(Self.workoutMessage(summary, context: context))
        workout = nil
        altitude.removeAll()
        pedometer.forget(before: date)
        return messages
    }
}
