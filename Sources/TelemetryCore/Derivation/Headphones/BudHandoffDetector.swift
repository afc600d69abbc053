/// Notices when headphone motion switches from one bud to the other.
///
/// Headphones stream from one bud at a time and every sample says which
/// (`sensorLocation`). The detector remembers the bud of the latest sample it was given; a
/// sample from the other bud is a hand-off. The first bud ever seen is not a hand-off, and the
/// bud is remembered across disconnections, so "the current bud" is always the last `to` of a
/// hand-off (or the first bud). Samples with `sensorLocation` `default` (not a bud) are ignored.
public struct BudHandoffDetector: Sendable, Codable {
    /// One switch of the streaming bud.
    public struct Handoff: Sendable, Equatable, Codable {
        /// The bud that streamed before.
        public var from: SensorLocation
        /// The bud that streams now.
        public var to: SensorLocation
        /// The timestamp of the first sample from `to`, s since boot.
        public var timestamp: Double

        /// Creates a hand-off.
        public init(from: SensorLocation, to: SensorLocation, timestamp: Double) {
            self.from = from
            self.to = to
            self.timestamp = timestamp
        }
    }

    /// The bud of the latest sample; nil before the first sample from a bud.
    public private(set) var current: SensorLocation?

    /// Creates a detector that has seen no bud yet.
    public init() {}

    /// Records one sample's bud.
    /// - Parameters:
    ///   - location: the sample's `sensorLocation`.
    ///   - timestamp: the sample's timestamp, s since boot.
    /// - Returns: the hand-off when the bud changed.
    public mutating func receive(_ location: SensorLocation, timestamp: Double) -> Handoff? {
        guard location != .default else { return nil }
        defer { current = location }
        guard let previous = current, previous != location else { return nil }
        return Handoff(from: previous, to: location, timestamp: timestamp)
    }
}
