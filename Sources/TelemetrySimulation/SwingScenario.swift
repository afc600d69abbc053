public import TelemetryCore

/// A seeded baseball-style session on an Apple Watch's batched streams, with ground truth.
///
/// The generator lays the ``Action``s end to end, models the wrist's motion as pure functions
/// of time (``SwingMotionModel``), samples it at 800 Hz (`batched/accelerometer`) and 200 Hz
/// (`batched/device-motion`) with sensor noise and sampling jitter, cuts each stream into
/// batches of about a second (boundaries jittered per stream), and orders the batches by a
/// random arrival latency per batch, so either stream may come first and, optionally, a batch
/// can arrive late or be lost. The ground truth comes from the generator's parameters: a
/// swing's start is the onset of its forward rotation, its impact the instant the contact's
/// ring-down begins (see ``SwingGroundTruth``).
///
/// ```swift
/// let scenario = SwingScenario(seed: 7, actions: [.idle(seconds: 1), .swing(contact: true), .walking(seconds: 5)])
/// for batch in scenario.arrivals { … }            // feed a detector in arrival order
/// scenario.groundTruth[0].timeToContact           // 0.12…0.25 s
/// ```
public struct SwingScenario: Sendable {
    /// One thing the wearer does.
    public enum Action: Sendable, Equatable {
        /// Standing still (small sways only).
        case idle(seconds: Double)
        /// Walking: arm swing, step bounce, heel strikes.
        case walking(seconds: Double)
        /// Waving the hand: fast rotation about the vertical, below the swing thresholds.
        case waving(seconds: Double)
        /// A knock on the watch (an impact with no swing).
        case bump
        /// A full-speed swing (time to contact 120–250 ms), hitting the ball or missing it.
        case swing(contact: Bool, placement: Placement = .anywhere)
        /// A slow practice swing (peak 2.5–6 rad/s), no ball.
        case practiceSwing
    }

    /// Where a swing lies relative to the batch boundaries.
    public enum Placement: Sendable, Equatable {
        /// Wherever the timeline puts it.
        case anywhere
        /// Start and impact (with margins) inside one batch of each stream.
        case insideBatch
        /// A batch boundary of both streams between the start and the impact.
        case acrossBatchBoundary
    }

    /// One of the two batched streams.
    public enum Stream: String, Sendable, Hashable {
        /// `batched/accelerometer`.
        case accelerometer
        /// `batched/device-motion`.
        case deviceMotion
    }

    /// A batch of either stream.
    public enum Batch: Sendable, Equatable {
        /// A `batched/accelerometer` frame.
        case accelerometer(AccelerometerBatch)
        /// A `batched/device-motion` frame.
        case deviceMotion(DeviceMotionBatch)

        /// The stream it belongs to.
        public var stream: Stream {
            switch self {
            case .accelerometer: .accelerometer
            case .deviceMotion: .deviceMotion
            }
        }
    }

    /// Identifies a batch: its stream and its position in the stream (0-based, before drops).
    public struct BatchID: Sendable, Hashable {
        /// The stream.
        public var stream: Stream
        /// Position in the stream.
        public var index: Int

        /// Creates an id.
        public init(_ stream: Stream, _ index: Int) {
            self.stream = stream
            self.index = index
        }
    }

    /// Noise, jitter and delivery settings.
    public struct Options: Sendable, Equatable {
        /// Accelerometer noise per axis, g (standard deviation).
        public var accelerometerNoise = 0.01
        /// Gyro noise per axis in device motion, rad/s (standard deviation).
        public var rotationRateNoise = 0.02
        /// Sampling-instant jitter, s (standard deviation, clipped at 3σ).
        public var timestampJitter = 20e-6
        /// Jitter of each batch boundary around its one-second schedule, s (uniform ±).
        public var boundaryJitter = 0.015
        /// Delay from a batch's end to its arrival, s (uniform, independent per batch): the
        /// two streams' batches arrive in either order.
        public var latency: ClosedRange<Double> = 0.02...0.4
        /// Probability that a batch is held back by 1–1.3 s more (arrives after the other
        /// stream's next batch).
        public var lateBatchProbability = 0.0
        /// Batches that are lost.
        public var droppedBatches: Set<BatchID> = []
        /// Seconds since boot at session time 0; `nil` draws one.
        public var uptimeAtStart: Double?

        /// Creates the defaults.
        public init() {}
    }

    /// The seed everything random derives from.
    public let seed: UInt64
    /// The swings the generator made, in time order (non-swing actions are not listed).
    public let groundTruth: [SwingGroundTruth]
    /// Every batch that was not dropped, in arrival order.
    public let arrivals: [Batch]
    /// Session length, s.
    public let duration: Double
    /// Seconds since boot at session time 0.
    public let uptimeAtStart: Double
    /// Session seconds outside the swings that should be published (each swing from its load
    /// to the end of its follow-through, ±0.25 s): the denominator of the false-positive rate.
    public let nonSwingSeconds: Double

    /// Generates a session.
    /// - Parameters:
    ///   - seed: seeds every random choice.
    ///   - actions: what the wearer does, in order.
    ///   - options: noise, jitter and delivery.
    public init(seed: UInt64, actions: [Action], options: Options = Options()) {
        self.seed = seed
        var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, salt: SplitMix64.stableHash("swing-timeline")))
        let uptime = options.uptimeAtStart ?? random.nextDouble(in: 20_000...90_000).milli
        uptimeAtStart = uptime
        let schedule = BatchSchedule(seed: seed, jitter: options.boundaryJitter)
        var timeline = SwingTimeline(random: random, schedule: schedule)
        for action in actions { timeline.add(action) }
        random = timeline.random
        duration = timeline.time + 1.5
        groundTruth = timeline.records.map { record in
            var truth = record
            truth.startTimestamp += uptime
            truth.impactTimestamp = truth.impactTimestamp.map { $0 + uptime }
            return truth
        }
        nonSwingSeconds = max(0, duration - timeline.swingSeconds)

        let sampler = BatchSampler(model: timeline.model, uptime: uptime, duration: duration, schedule: schedule, options: options, seed: seed)
        let accelerometer = sampler.accelerometerBatches()
        let deviceMotion = sampler.deviceMotionBatches()
        arrivals = sampler.arrivalOrder(accelerometer: accelerometer, deviceMotion: deviceMotion)
    }

    /// A long seeded session for the accuracy report: `swings` full-speed swings (80 % contact,
    /// 20 % miss, anywhere relative to the batches), each preceded by a non-swing action half of
    /// the time (walking, waving, a practice swing, a knock, standing still).
    /// - Parameters:
    ///   - seed: seeds every random choice.
    ///   - swings: how many full-speed swings.
    ///   - options: noise, jitter and delivery.
    /// - Returns: the scenario.
    public static func accuracySession(seed: UInt64, swings: Int, options: Options = Options()) -> SwingScenario {
        var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, salt: SplitMix64.stableHash("accuracy-actions")))
        var actions: [Action] = [.idle(seconds: 1)]
        for _ in 0..<swings {
            if random.nextUnitInterval() < 0.5 {
                switch Int(random.nextUnitInterval() * 5) {
                case 0: actions.append(.walking(seconds: random.nextDouble(in: 3...6)))
                case 1: actions.append(.waving(seconds: random.nextDouble(in: 2...4)))
                case 2: actions.append(.practiceSwing)
                case 3: actions.append(.bump)
                default: actions.append(.idle(seconds: random.nextDouble(in: 1...3)))
                }
            }
            actions.append(.swing(contact: random.nextUnitInterval() < 0.8))
        }
        actions.append(.idle(seconds: 1))
        return SwingScenario(seed: seed, actions: actions, options: options)
    }

    /// A seeded session with no swing to publish, about `seconds` long: walking, waving,
    /// practice swings, knocks on the watch and standing still, in random order. For the
    /// false-positive rate.
    /// - Parameters:
    ///   - seed: seeds every random choice.
    ///   - seconds: the approximate session length.
    ///   - options: noise, jitter and delivery.
    /// - Returns: the scenario (its ground truth lists only practice swings).
    public static func nonSwingSession(seed: UInt64, seconds: Double, options: Options = Options()) -> SwingScenario {
        var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, salt: SplitMix64.stableHash("non-swing-actions")))
        var actions: [Action] = [.idle(seconds: 1)]
        var planned = 1.0
        while planned < seconds {
            switch Int(random.nextUnitInterval() * 5) {
            case 0:
                let length = random.nextDouble(in: 5...20)
                actions.append(.walking(seconds: length))
                planned += length
            case 1:
                let length = random.nextDouble(in: 2...6)
                actions.append(.waving(seconds: length))
                planned += length
            case 2:
                actions.append(.practiceSwing)
                planned += 3.5
            case 3:
                actions.append(.bump)
                planned += 1
            default:
                let length = random.nextDouble(in: 1...5)
                actions.append(.idle(seconds: length))
                planned += length
            }
        }
        return SwingScenario(seed: seed, actions: actions, options: options)
    }
}
