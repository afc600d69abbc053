public import TelemetryCore

/// Minutes of historical accelerometer data (`recorder/accelerometer`, CMSensorRecorder, 50 Hz)
/// of a watch on a resting forearm, with resting tremor of known class and frequency, and the
/// ground truth a tremor analysis must reproduce.
///
/// Each minute (aligned to wall-clock minutes) is either tremor-free or has tremor of one class
/// at one frequency, along a random direction of the device frame (not only along gravity), as
/// a translation whose peak-to-peak displacement sits well inside the class's MDS-UPDRS band:
/// slight 0.5 cm, mild 2 cm, moderate 6 cm, strong 14 cm (±10 % slow modulation). Frequencies
/// are drawn from 3.5–6.5 Hz; strong tremor from 3.5–5 Hz (large tremors are slow, and 14 cm at
/// 5 Hz is already 7 g, near a watch accelerometer's range). The minutes are interrupted by
/// voluntary movements (reaching: the forearm turns by 25–60° over 1–2 s with a minimum-jerk
/// profile and the wrist travels 10–35 cm; tremor pauses around it, as resting tremor does) and
/// gaps (1–4 s without samples). Every minute also has gravity along a wrist-plausible
/// direction, a slow postural sway of about 1°, Gaussian sensor noise (0.005 g per axis by
/// default), and tremor-free minutes a physiological tremor of 0.008 g at 8.5–11 Hz (outside
/// the band).
///
/// Timestamps are boot-relative (`timestamp = startDate − bootDate`), `startDate`s wall clock.
/// Pure and seeded: the same device id, seed, start and options always give the same samples.
public struct TremorScenario: Sendable, Equatable {
    /// What to generate.
    public struct Options: Sendable, Equatable {
        /// Minutes of data.
        public var minutes = 10
        /// How many of them are tremor-free; the others cycle through slight, mild, moderate and
        /// strong (in a seeded random order).
        public var tremorFreeMinutes = 2
        /// Gaussian sensor noise per axis, g.
        public var noise = 0.005
        /// Voluntary movements per minute (drawn uniformly).
        public var voluntaryMovementsPerMinute: ClosedRange<Int> = 0...2
        /// Gaps per minute (drawn uniformly).
        public var gapsPerMinute: ClosedRange<Int> = 0...1
        /// Whether tremor-free minutes carry an 8.5–11 Hz physiological tremor of 0.008 g.
        public var physiologicalTremor = true
        /// Sample rate, Hz (CMSensorRecorder: 50).
        public var sampleRate = 50.0

        /// Creates the defaults.
        public init() {}
    }

    /// The device id used in topics.
    public let deviceId: String
    /// Seeds every random choice.
    public let seed: UInt64
    /// Start of the first minute, Unix epoch seconds (a whole minute).
    public let startDate: Double
    /// When the device booted, Unix epoch seconds (ms resolution): `timestamp = startDate − bootDate`.
    public let bootDate: Double
    /// What was generated.
    public let options: Options
    /// The ground truth, one per minute.
    public let minutes: [TremorMinuteTruth]
    /// Every sample, in time order (gaps left out).
    public let samples: [RecordedAccelerometerSample]
    /// The recording batch identifier of the first chunk (``chunks(samplesPerChunk:)``).
    public let firstIdentifier: UInt64

    /// Generates a scenario.
    /// - Parameters:
    ///   - deviceId: the device id; default `watch-tremor`.
    ///   - seed: seeds every random choice.
    ///   - startDate: Unix epoch seconds; moved down to the start of its minute. Default
    ///     2026-01-01T00:00:00Z.
    ///   - options: what to generate.
    public init(deviceId: String = "watch-tremor", seed: UInt64, startDate: Double = 1_767_225_600, options: Options = Options()) {
        precondition(options.minutes >= 0 && options.sampleRate > 0, "minutes ≥ 0 and a positive sample rate")
        self.deviceId = deviceId
        self.seed = seed
        self.options = options
        let minuteStart = (startDate / 60).rounded(.down) * 60
        self.startDate = minuteStart
        var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, salt: SplitMix64.stableHash("tremor/" + deviceId)))
        bootDate = minuteStart - random.nextDouble(in: 20_000...90_000).milli
        firstIdentifier = 1_000 + random.next() % 1_000_000
        let plan = TremorMotionModel.plan(options: options, random: &random)
        minutes = plan.truths.map { truth in
            var dated = truth
            dated.startDate += minuteStart
            dated.endDate += minuteStart
            return dated
        }
        samples = plan.model.samples(startDate: minuteStart, bootDate: bootDate, gaps: plan.truths.map(\.gaps), options: options, random: &random)
    }

    /// The peak-to-peak displacement the scenario gives a tremor class, cm; nil for `unknown` and `none`.
    public static func peakToPeak(for severity: TremorSeverity) -> Double? {
        switch severity {
        case .slight: 0.5
        case .mild: 2
        case .moderate: 6
        case .strong: 14
        case .unknown, .none: nil
        }
    }

    /// The frequencies the scenario draws a tremor class's frequency from, Hz.
    public static func frequencyRange(for severity: TremorSeverity) -> ClosedRange<Double> {
        severity == .strong ? 3.5...5 : 3.5...6.5
    }

    /// The samples of one minute (by `startDate`).
    /// - Parameter index: the minute, 0-based.
    public func samples(inMinute index: Int) -> [RecordedAccelerometerSample] {
        let truth = minutes[index]
        return samples.filter { $0.startDate >= truth.startDate && $0.startDate < truth.endDate }
    }
}
