/// Which time a stream's samples cover without a gap, kept as the stream's first and last
/// timestamps and its recent gaps instead of the samples themselves.
///
/// The swing detector only asks the accelerometer whether it was there to see an impact over a
/// missed swing (up to ``SwingConfiguration/maxRotationDuration`` plus a lagging batch); keeping
/// seconds of 800 Hz samples for that would cost ≈ 20 KB a second per device. The answer is
/// the one a walk over the samples would give: covered when the first sample is at most one
/// gap tolerance after the start, the last at most one before the end, and no step between
/// consecutive samples larger than the tolerance overlaps the range.
///
/// The newest ``gapCapacity`` gaps are kept; when an older one is forgotten, coverage starts
/// after it (a range reaching back there is reported not covered).
public struct StreamCoverage: Sendable {
    /// A step between consecutive samples larger than the tolerance.
    struct Gap: Sendable {
        /// The sample before the step.
        var from: Double
        /// The sample after it.
        var to: Double
    }

    /// Gaps kept; an older one moves the start of coverage past it.
    public static let gapCapacity = 32

    /// Largest step between timestamps that is not a gap, s.
    public let tolerance: Double
    /// The earliest timestamp coverage is known from: the first sample, or the end of the newest
    /// gap forgotten.
    public private(set) var start: Double?
    /// The newest sample's timestamp.
    public private(set) var end: Double?
    private var gaps: SampleRing<Gap>

    /// Creates an empty record.
    /// - Parameter tolerance: largest step between timestamps that is not a gap, s.
    public init(tolerance: Double) {
        self.tolerance = tolerance
        gaps = SampleRing(capacity: Self.gapCapacity, filler: Gap(from: 0, to: 0))
    }

    /// Records a sample newer than every sample recorded.
    public mutating func extend(to timestamp: Double) {
        if let end, timestamp - end > tolerance {
            if gaps.count == gaps.capacity, let forgotten = gaps.first { start = forgotten.to }
            gaps.append(Gap(from: end, to: timestamp))
        }
        if start == nil { start = timestamp }
        end = timestamp
    }

    /// Forgets every sample.
    public mutating func removeAll() {
        start = nil
        end = nil
        gaps.removeAll()
    }

    /// Whether the samples cover `[from, through]` without a gap.
    public func covers(from rangeStart: Double, through rangeEnd: Double) -> Bool {
        guard let start, let end, start <= rangeStart + tolerance, end >= rangeEnd - tolerance else { return false }
        for position in 0..<gaps.count where gaps[position].to > rangeStart && gaps[position].from < rangeEnd { return false }
        return true
    }
}
