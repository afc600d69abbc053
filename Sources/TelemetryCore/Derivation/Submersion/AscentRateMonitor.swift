/// Warns when a diver rises faster than a limit — what a dive computer does, and a project
/// addition beyond Core Motion.
///
/// Rule (also in `docs/submersion.md`): at each depth sample, the ascent rate is the depth lost
/// since the reference sample divided by the time between them, in m/min; the reference is the
/// newest earlier sample at least ``Configuration/window`` seconds older (so the rate averages
/// over the window, 3 s by default, not over single noisy samples). No rate is computed when the
/// reference is more than two windows old (a gap in the data). A warning is raised when the rate
/// exceeds ``Configuration/limit``; the next one only after the rate has fallen back to 80 % of the
/// limit or less (``rearmFraction``), so one fast ascent gives one warning, not one per sample.
///
/// Pure: fed samples in date order (the depth state machine drops stale ones first); keeps a
/// bounded history (``maxSamples``).
public struct AscentRateMonitor: Sendable, Codable {
    /// Settings.
    public struct Configuration: Sendable, Equatable, Codable {
        /// The fastest allowed ascent, m/min. Default 10.
        public var limit: Double
        /// The window the rate is measured over, s. Default 3.
        public var window: Double

        /// Creates settings.
        /// - Parameters:
        ///   - limit: m/min; default 10.
        ///   - window: s; default 3.
        public init(limit: Double = 10, window: Double = 3) {
            self.limit = limit
            self.window = window
        }
    }

    /// A too-fast ascent.
    public struct Warning: Sendable, Equatable, Codable {
        /// The date of the sample that showed it, Unix epoch seconds.
        public var date: Double
        /// The depth of the sample that showed it, m.
        public var depth: Double
        /// The date of the reference sample the rate is measured from.
        public var fromDate: Double
        /// The depth of the reference sample, m.
        public var fromDepth: Double
        /// The ascent rate, m/min (positive: rising).
        public var rate: Double
    }

    /// The fraction of the limit the rate must fall to before another warning can be raised.
    public static let rearmFraction = 0.8
    /// The most samples kept (enough for the window at far more than Core Motion's 3 Hz).
    public static let maxSamples = 256

    /// The settings.
    public let configuration: Configuration
    private var samples: [DepthSample] = []

    /// One depth reading of the window.
    private struct DepthSample: Sendable, Codable {
        var date: Double
        var depth: Double
    }
    private var armed = true

    /// Creates a monitor.
    /// - Parameter configuration: limit and window.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        samples.reserveCapacity(16)
    }

    /// The ascent rate (m/min) at the last sample, if one could be computed.
    public private(set) var currentRate: Double?

    /// Records a depth sample.
    /// - Parameters:
    ///   - depth: m, positive under water.
    ///   - date: Unix epoch seconds, after every earlier sample's.
    /// - Returns: a warning when this sample shows a too-fast ascent and the monitor is armed.
    public mutating func record(depth: Double, date: Double) -> Warning? {
        // Keep exactly one sample at or before the window's start (the reference).
        let windowStart = date - configuration.window
        while samples.count >= 2, samples[1].date <= windowStart { samples.removeFirst() }
        if samples.count >= Self.maxSamples { samples.removeFirst() }
        var warning: Warning?
        currentRate = nil
        if let reference = samples.first, reference.date <= windowStart, date - reference.date <= 2 * configuration.window {
            let rate = (reference.depth - depth) / (date - reference.date) * 60
            currentRate = rate
            if rate > configuration.limit, armed {
                armed = false
                warning = Warning(date: date, depth: depth, fromDate: reference.date, fromDepth: reference.depth, rate: rate)
            } else if rate <= configuration.limit * Self.rearmFraction {
                armed = true
            }
        }
        samples.append(DepthSample(date: date, depth: depth))
        return warning
    }

    /// Forgets every sample (a dive ended) and re-arms.
    public mutating func reset() {
        samples.removeAll(keepingCapacity: true)
        armed = true
        currentRate = nil
    }
}
