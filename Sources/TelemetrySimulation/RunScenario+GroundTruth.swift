import TelemetryCore

// The ground truth of a run, from the script's noiseless profile (continuous steps, distance and
// altitude), never from TelemetryCore's RunSegmentDeriver: segments are the run phases, bounded
// by the workout's start, the pause/resume events and the workout's end; elevation gain is the
// sum of the legs' climbs.

extension RunScenario {
    /// A segment the gateway must publish.
    public struct ExpectedSegment: Sendable, Equatable {
        /// 1-based number in the workout.
        public var index: Int
        /// Unix epoch seconds (ms resolution, as the frames carry it).
        public var startDate: Double
        /// Unix epoch seconds.
        public var endDate: Double
        /// Steps taken (fractional: the continuous count).
        public var steps: Double
        /// m.
        public var distance: Double
        /// Altitude at the end minus at the start, m.
        public var elevationChange: Double
        /// Sum of the climbs, m.
        public var elevationGain: Double
        /// Whether the gain reaches the hill height.
        public var hill: Bool

        /// s.
        public var activeDuration: Double { endDate - startDate }
        /// s/m.
        public var averageActivePace: Double { activeDuration / distance }
    }

    /// The workout summary the gateway must publish.
    public struct ExpectedWorkout: Sendable, Equatable {
        /// Unix epoch seconds.
        public var startDate: Double
        /// Unix epoch seconds.
        public var endDate: Double
        /// Sum of the segments' durations, s.
        public var activeDuration: Double
        /// The rest of the workout, s.
        public var pausedDuration: Double
        /// Number of segments.
        public var segments: Int
        /// Steps over the segments.
        public var steps: Double
        /// m over the segments.
        public var distance: Double
        /// s/m over active time only.
        public var averageActivePace: Double
        /// Sum of the climbs, m.
        public var elevationGain: Double
        /// Sum of the segments' elevation changes, m.
        public var elevationChange: Double
    }

    /// The segments, one per run phase, in order.
    /// - Parameters:
    ///   - startDate: Unix epoch seconds at the scenario's start.
    ///   - hillHeight: the gain that makes a hill, m (the gateway's default is 10).
    public func expectedSegments(startDate: Double, hillHeight: Double = 10) -> [ExpectedSegment] {
        let knots = knots
        var segments: [ExpectedSegment] = []
        var time = lead
        for phase in phases {
            defer { time += phase.duration }
            guard case .run(let legs) = phase else { continue }
            let start = state(at: time, knots: knots)
            let end = state(at: time + phase.duration, knots: knots)
            let gain = legs.reduce(0) { $0 + max(0, $1.climb) }
            segments.append(
                ExpectedSegment(
                    index: segments.count + 1, startDate: date(time, startDate: startDate), endDate: date(time + phase.duration, startDate: startDate),
                    steps: end.steps - start.steps, distance: end.distance - start.distance, elevationChange: end.altitude - start.altitude,
                    elevationGain: gain, hill: gain >= hillHeight))
        }
        return segments
    }

    /// The workout summary.
    /// - Parameter startDate: Unix epoch seconds at the scenario's start.
    public func expectedWorkout(startDate: Double) -> ExpectedWorkout {
        let segments = expectedSegments(startDate: startDate)
        let start = date(workoutStart, startDate: startDate)
        let end = date(workoutEnd, startDate: startDate)
        let active = segments.reduce(0) { $0 + $1.activeDuration }
        let distance = segments.reduce(0) { $0 + $1.distance }
        return ExpectedWorkout(
            startDate: start, endDate: end, activeDuration: active, pausedDuration: end - start - active, segments: segments.count,
            steps: segments.reduce(0) { $0 + $1.steps }, distance: distance, averageActivePace: active / distance,
            elevationGain: segments.reduce(0) { $0 + $1.elevationGain }, elevationChange: segments.reduce(0) { $0 + $1.elevationChange })
    }

    /// The device's boot epoch: what the gateway's clock anchor estimates from below, Unix
    /// epoch seconds.
    /// - Parameter startDate: Unix epoch seconds at the scenario's start.
    public func bootDate(startDate: Double) -> Double { startDate - uptimeAtStart }
}
