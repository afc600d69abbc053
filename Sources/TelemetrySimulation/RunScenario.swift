import MQTTVocabulary

#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif
public import TelemetryCore

/// One scripted run of an Apple Watch Series 9 with its ground truth: the frames the watch
/// publishes (`hello`, `workout`, `pedometer/data`, `pedometer/event`, `altimeter`) and the
/// segments and summary the gateway must derive from them.
///
/// The runner starts a `running` workout ``lead`` seconds after the scenario starts and follows
/// ``phases``: runs (legs of constant speed, cadence and slope) and pauses (standing still).
/// Each pause is a `pedometer/event` `pause` at its start and `resume` at its end; the workout
/// ends when the last phase ends (while running, or at the end of a final pause). The watch
/// sends:
///
/// - `pedometer/data` every ≈ ``pedometerInterval`` s (±0.3 s), cumulative steps (whole steps)
///   and distance since the workout's start, and a last update exactly at the workout's end;
/// - `altimeter` every ≈ ``altimeterInterval`` s (±0.05 s) from the scenario's start, relative
///   altitude since the first sample with Gaussian barometer noise of ``altitudeNoise`` m and
///   boot-relative timestamps (``uptimeAtStart`` + scenario seconds);
/// - ``redeliveries``: events sent late (after later frames) or twice, to exercise by-date
///   handling.
///
/// The ground truth (``expectedSegments(startDate:hillHeight:)``, ``expectedWorkout(startDate:)``)
/// comes from the script's noiseless profile, not from the gateway's code. Pure and seeded.
public struct RunScenario: Sendable, Equatable {
    /// A stretch of running at constant speed, cadence and slope.
    public struct Leg: Sendable, Equatable {
        /// How long, s.
        public var duration: Double
        /// Altitude gained over the leg (negative: lost), m.
        public var climb: Double
        /// m/s.
        public var speed: Double
        /// steps/s.
        public var cadence: Double

        /// Creates a leg.
        /// - Parameters:
        ///   - duration: s.
        ///   - climb: m (negative for a descent).
        ///   - speed: m/s.
        ///   - cadence: steps/s.
        public init(duration: Double, climb: Double = 0, speed: Double, cadence: Double) {
            self.duration = duration
            self.climb = climb
            self.speed = speed
            self.cadence = cadence
        }
    }

    /// A part of the workout.
    public enum Phase: Sendable, Equatable {
        /// Running: one segment.
        case run([Leg])
        /// Standing still (a stoplight, a break), s.
        case pause(Double)

        /// How long the phase lasts, s.
        public var duration: Double {
            switch self {
            case .run(let legs): legs.reduce(0) { $0 + $1.duration }
            case .pause(let seconds): seconds
            }
        }
    }

    /// A pedometer event published out of the ordinary order.
    public enum Redelivery: Sendable, Equatable {
        /// Event number `event` (0-based, in date order) is published only `by` s after its date.
        case delayed(event: Int, by: Double)
        /// Event number `event` is published at its date and again `after` s later.
        case repeated(event: Int, after: Double)
    }

    /// One thing the watch sends.
    public enum Observation: Sendable, Equatable {
        /// `workout`.
        case workout(WorkoutEvent)
        /// `pedometer/event`; `sequence` is the event's own number (a redelivery repeats it).
        case pedometerEvent(PedometerEvent, sequence: UInt64)
        /// `pedometer/data`.
        case pedometerData(PedometerData)
        /// `altimeter`.
        case altimeter(AltitudeSample)
    }

    /// The noiseless state of the runner at an instant.
    struct Knot: Sendable, Equatable {
        /// Scenario seconds.
        var time: Double
        /// m above the start.
        var altitude: Double
        /// Steps since the workout started (fractional).
        var steps: Double
        /// m since the workout started.
        var distance: Double
    }

    /// A short name, e.g. `urban-run-1`.
    public var name: String
    /// The device id used in topics.
    public var deviceId: String
    /// Seeds the noise and the update jitter.
    public var seed: UInt64
    /// The workout, in order.
    public var phases: [Phase]
    /// The HealthKit activity type of the workout.
    public var activityType = "running"
    /// Standard deviation of the barometric altitude noise, m.
    public var altitudeNoise = 0.2
    /// The watch's uptime when the scenario starts, s (boot-relative timestamps start there).
    public var uptimeAtStart = 86_400.0
    /// Seconds from the scenario's start (first altimeter sample) to the workout's start.
    public var lead = 3.0
    /// Nominal seconds between `pedometer/data` updates.
    public var pedometerInterval = 2.5
    /// Nominal seconds between altimeter samples.
    public var altimeterInterval = 1.0
    /// Altitude above sea level at the start, m (for the pressure field).
    public var baseAltitude = 40.0
    /// Events published late or twice.
    public var redeliveries: [Redelivery] = []
    /// Redeliveries the gateway must count as duplicates (same date and type as a pending event).
    public var expectedDuplicateEvents = 0
    /// Redeliveries the gateway must count as late (dated before a published segment's end).
    public var expectedLateEvents = 0

    /// Creates a scenario.
    /// - Parameters:
    ///   - name: a short name.
    ///   - deviceId: the device id used in topics.
    ///   - seed: seeds the noise and jitter.
    ///   - phases: the workout.
    public init(name: String, deviceId: String, seed: UInt64, phases: [Phase]) {
        self.name = name
        self.deviceId = deviceId
        self.seed = seed
        self.phases = phases
    }

    /// The watch that runs: an Apple Watch Series 9 (pedometer, pedometer events, altimeter).
    public var device: SimulatedDevice { .appleWatchSeries9(id: deviceId, activity: .walking) }

    /// Scenario seconds when the workout starts.
    public var workoutStart: Double { lead }
    /// Scenario seconds when the workout ends.
    public var workoutEnd: Double { lead + phases.reduce(0) { $0 + $1.duration } }

    /// The explicit pedometer events in date order, as (scenario seconds, type): a pause at the
    /// start of each pause phase and a resume at its end, except after the last phase.
    public var events: [(time: Double, type: PedometerEventType)] {
        var result: [(time: Double, type: PedometerEventType)] = []
        var time = lead
        for (index, phase) in phases.enumerated() {
            if case .pause(let seconds) = phase {
                result.append((time, .pause))
                if index < phases.count - 1 { result.append((time + seconds, .resume)) }
            }
            time += phase.duration
        }
        return result
    }

    /// The noiseless state at every leg and phase boundary, from the scenario's start.
    var knots: [Knot] {
        var knot = Knot(time: lead, altitude: 0, steps: 0, distance: 0)
        var result = [Knot(time: 0, altitude: 0, steps: 0, distance: 0), knot]
        for phase in phases {
            switch phase {
            case .run(let legs):
                for leg in legs {
                    knot.time += leg.duration
                    knot.altitude += leg.climb
                    knot.steps += leg.cadence * leg.duration
                    knot.distance += leg.speed * leg.duration
                    result.append(knot)
                }
            case .pause(let seconds):
                knot.time += seconds
                result.append(knot)
            }
        }
        return result
    }

    /// The noiseless state at `time` scenario seconds (linear between knots, constant outside).
    func state(at time: Double, knots: [Knot]) -> Knot {
        guard let after = knots.firstIndex(where: { $0.time > time }) else { return knots[knots.count - 1] }
        guard after > 0 else { return knots[0] }
        let (a, b) = (knots[after - 1], knots[after])
        let fraction = (time - a.time) / (b.time - a.time)
        func mix(_ x: Double, _ y: Double) -> Double { x + (y - x) * fraction }
        return Knot(time: time, altitude: mix(a.altitude, b.altitude), steps: mix(a.steps, b.steps), distance: mix(a.distance, b.distance))
    }

    /// The date of a scenario time, ms resolution, as every frame carries it.
    /// - Parameters:
    ///   - time: scenario seconds.
    ///   - startDate: Unix epoch seconds at the scenario's start.
    public func date(_ time: Double, startDate: Double) -> Double { (startDate + time).milli }

    /// Everything the watch sends after its `hello`, in publishing order (scenario seconds).
    /// - Parameter startDate: Unix epoch seconds at the scenario's start.
    public func observations(startDate: Double) -> [(time: Double, observation: Observation)] {
        var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, salt: SplitMix64.stableHash(deviceId)))
        let knots = knots
        let end = workoutEnd
        // (time, priority at equal times, observation); the sort below is stable.
        var timeline: [(time: Double, priority: Int, observation: Observation)] = []
        timeline.append((lead, 0, .workout(WorkoutEvent(state: .running, activityType: activityType, date: date(lead, startDate: startDate)))))
        for (number, event) in events.enumerated() {
            let observation = Observation.pedometerEvent(PedometerEvent(date: date(event.time, startDate: startDate), type: event.type), sequence: UInt64(number + 1))
            var sendTimes = [event.time]
            for redelivery in redeliveries {
                switch redelivery {
                case .delayed(event: number, by: let delay): sendTimes = [event.time + delay]
                case .repeated(event: number, after: let delay): sendTimes.append(event.time + delay)
                default: continue
                }
            }
            for time in sendTimes { timeline.append((time, 1, observation)) }
        }
        let workoutStartDate = date(lead, startDate: startDate)
        var time = lead + pedometerInterval
        while true {
            let update = min(time + random.nextDouble(in: -0.3...0.3), end)
            let state = state(at: update, knots: knots)
            let leg = update < end ? leg(at: update) : nil
            let data = PedometerData(
                startDate: workoutStartDate, endDate: date(update, startDate: startDate), numberOfSteps: Int(state.steps),
                distance: state.distance.milli, currentPace: leg.map { (1 / $0.speed).milli }, currentCadence: leg.map { $0.cadence.milli })
            timeline.append((update, 2, .pedometerData(data)))
            if update >= end { break }
            time += pedometerInterval
        }
        var firstReading: Double?
        var sampleTime = 0.5
        while sampleTime <= end {
            let at = sampleTime + random.nextDouble(in: -0.05...0.05)
            let reading = state(at: at, knots: knots).altitude + random.nextGaussian(mean: 0, standardDeviation: altitudeNoise)
            let relative = reading - (firstReading ?? reading)
            if firstReading == nil { firstReading = reading }
            let pressure = 101.325 * pow(1 - 2.25577e-5 * (baseAltitude + reading), 5.25588)
            timeline.append((at, 3, .altimeter(AltitudeSample(timestamp: (uptimeAtStart + at).milli, relativeAltitude: relative.milli, pressure: pressure.micro))))
            sampleTime += altimeterInterval
        }
        timeline.append((end, 4, .workout(WorkoutEvent(state: .ended, activityType: activityType, date: date(end, startDate: startDate)))))
        return timeline.enumerated()
            .sorted { ($0.element.time, $0.element.priority, $0.offset) < ($1.element.time, $1.element.priority, $1.offset) }
            .map { ($0.element.time, $0.element.observation) }
    }

    /// The frames to publish: the retained `hello`, then every observation with a per-stream
    /// `sequence` (a redelivered event repeats its own).
    /// - Parameter startDate: Unix epoch seconds at the scenario's start.
    /// - Returns: frames in publishing order.
    public func frames(startDate: Double) -> [SimulatedFrame] {
        var frames = [SimulatedFrame(deviceId: deviceId, stream: "hello", payload: FrameEncoder.encode(device.descriptor), retain: true, qos: .atLeastOnce, time: 0)]
        var sequences: [InboundStream: UInt64] = [:]
        func next(_ stream: InboundStream) -> UInt64 {
            sequences[stream, default: 0] += 1
            return sequences[stream]!
        }
        for (time, observation) in observations(startDate: startDate) {
            let stream: InboundStream
            let payload: [UInt8]
            switch observation {
            case .workout(let event):
                stream = .workout
                payload = FrameEncoder.encode(event, sequence: next(stream))
            case .pedometerEvent(let event, let sequence):
                stream = .pedometerEvent
                payload = FrameEncoder.encode(event, sequence: sequence)
            case .pedometerData(let data):
                stream = .pedometerData
                payload = FrameEncoder.encode(data, sequence: next(stream))
            case .altimeter(let sample):
                stream = .altimeter
                payload = FrameEncoder.encode(sample, sequence: next(stream))
            }
            frames.append(SimulatedFrame(deviceId: deviceId, stream: stream.rawValue, payload: payload, retain: false, qos: .atLeastOnce, time: time))
        }
        return frames
    }

    // MARK: Phases

    /// The leg under way at `time`, if running.
    private func leg(at time: Double) -> Leg? {
        var start = lead
        for phase in phases {
            guard case .run(let legs) = phase else {
                start += phase.duration
                continue
            }
            for leg in legs {
                if time >= start && time < start + leg.duration { return leg }
                start += leg.duration
            }
        }
        return nil
    }
}
