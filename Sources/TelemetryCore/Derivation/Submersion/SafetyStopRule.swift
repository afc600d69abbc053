/// Checks that a dive deeper than a limit ended with a safety stop — what a dive computer does,
/// and a project addition beyond Core Motion.
///
/// Rule (also in `docs/submersion.md`): a dive whose deepest depth exceeds
/// ``Configuration/requiredBeyond`` (10 m by default) needs a stop of at least
/// ``Configuration/duration`` (180 s) within ``Configuration/depth`` ± ``Configuration/tolerance``
/// (4.5 ± 1.5 m, i.e. 3–6 m). The stop is measured as the span between the first and the last of
/// consecutive depth samples inside the band; a sample outside ends it. Only a stop made after
/// the deepest point counts: a new deepest depth starts the count again. When the diver
/// surfaces, ``outcome`` says `notRequired`, `completed` or `missed`; `missed` publishes a hint.
///
/// Pure: fed depth samples of one dive in date order.
public struct SafetyStopRule: Sendable, Codable {
    /// Settings.
    public struct Configuration: Sendable, Equatable, Codable {
        /// Dives deeper than this (m) need a stop. Default 10.
        public var requiredBeyond: Double
        /// The centre of the stop band, m. Default 4.5.
        public var depth: Double
        /// Half the width of the stop band, m. Default 1.5.
        public var tolerance: Double
        /// The shortest stop that counts, s. Default 180.
        public var duration: Double

        /// Creates settings.
        /// - Parameters:
        ///   - requiredBeyond: m; default 10.
        ///   - depth: m; default 4.5.
        ///   - tolerance: m; default 1.5.
        ///   - duration: s; default 180.
        public init(requiredBeyond: Double = 10, depth: Double = 4.5, tolerance: Double = 1.5, duration: Double = 180) {
            self.requiredBeyond = requiredBeyond
            self.depth = depth
            self.tolerance = tolerance
            self.duration = duration
        }

        /// Whether a depth is inside the stop band.
        /// - Parameter depth: m.
        public func isInBand(_ depth: Double) -> Bool {
            abs(depth - self.depth) <= tolerance
        }
    }

    /// The verdict on a dive's safety stop.
    public enum Outcome: String, Sendable, Equatable, Codable {
        /// The dive was not deeper than ``Configuration/requiredBeyond``.
        case notRequired
        /// A long enough stop was made after the deepest point.
        case completed
        /// The dive needed a stop and none long enough was made after the deepest point.
        case missed
    }

    /// The settings.
    public let configuration: Configuration
    /// The deepest depth recorded, m.
    public private(set) var deepest: Double?
    /// The longest stop in the band since the deepest point, s.
    public private(set) var longestStop: Double = 0
    private var runStart: Double?

    /// Creates a rule for one dive.
    /// - Parameter configuration: the band, duration and depth limit.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Records a depth sample of the dive.
    /// - Parameters:
    ///   - depth: m.
    ///   - date: Unix epoch seconds, after every earlier sample's.
    public mutating func record(depth: Double, date: Double) {
        if deepest.map({ depth > $0 }) ?? true {
            deepest = depth
            longestStop = 0
            runStart = nil
        }
        guard configuration.isInBand(depth) else {
            runStart = nil
            return
        }
        let start = runStart ?? date
        runStart = start
        longestStop = max(longestStop, date - start)
    }

    /// The verdict if the dive ended now.
    public var outcome: Outcome {
        guard let deepest, deepest > configuration.requiredBeyond else { return .notRequired }
        return longestStop >= configuration.duration ? .completed : .missed
    }

    /// Forgets the dive.
    public mutating func reset() {
        deepest = nil
        longestStop = 0
        runStart = nil
    }
}
