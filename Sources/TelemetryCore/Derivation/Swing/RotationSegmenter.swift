/// A stretch of fast rotation about gravity in one direction: a candidate swing.
public struct RotationSegment: Sendable, Equatable {
    /// +1 clockwise seen from above (`ω·ĝ > 0`), −1 counter-clockwise.
    public var direction: Double
    /// Timestamp of the first sample above the threshold.
    public var firstTimestamp: Double
    /// Timestamp of the last sample above the threshold.
    public var lastTimestamp: Double
    /// Timestamp of the largest rate.
    public var peakTimestamp: Double
    /// The largest `direction·ω·ĝ`, rad/s.
    public var peak: Double
    /// The rate stayed above the threshold longer than ``SwingConfiguration/maxRotationDuration``.
    public var tooLong: Bool

    /// Creates a segment.
    public init(direction: Double, firstTimestamp: Double, lastTimestamp: Double, peakTimestamp: Double, peak: Double, tooLong: Bool = false) {
        self.direction = direction
        self.firstTimestamp = firstTimestamp
        self.lastTimestamp = lastTimestamp
        self.peakTimestamp = peakTimestamp
        self.peak = peak
        self.tooLong = tooLong
    }
}

/// Cuts the rotation rate about gravity into ``RotationSegment``s, streaming: each sample of
/// the window is examined once, in order, whatever the batches.
///
/// A segment opens at the first sample whose `|ω·ĝ|` exceeds ``SwingConfiguration/startRate``
/// and closes after ``SwingConfiguration/startConsistency`` of samples at or below it (the
/// same rule as the backward start scan), when the rate exceeds it in the other direction, or
/// at a gap (then it is dropped: it cannot be measured).
public struct RotationSegmenter: Sendable {
    /// The settings in use.
    public let configuration: SwingConfiguration
    private let consistencySamples: Int
    private var nextIndex = 0
    private var open: RotationSegment?
    private var below = 0

    /// Creates a segmenter.
    public init(configuration: SwingConfiguration) {
        self.configuration = configuration
        consistencySamples = max(1, Int((configuration.startConsistency * configuration.deviceMotionRate).rounded()))
    }

    /// Starts over (the window was emptied).
    public mutating func reset() {
        nextIndex = 0
        open = nil
        below = 0
    }

    /// Examines the window's device-motion samples not seen yet.
    /// - Parameters:
    ///   - window: the window, after new device-motion samples were appended.
    ///   - final: no more samples will come: an open segment is closed at its last sample.
    ///   - found: called with each closed segment, in time order.
    /// - Returns: every segment whose last sample is before this time has been reported.
    public mutating func scan(_ window: BatchAlignmentWindow, final: Bool = false, found: (RotationSegment) -> Void) -> Double {
        let ring = window.motion
        let threshold = configuration.startRate
        if nextIndex < ring.startIndex {
            // Samples were overwritten unseen (a stream lagging beyond the window): start over.
            nextIndex = ring.startIndex
            open = nil
            below = 0
        }
        while nextIndex < ring.endIndex {
            let point = ring[absolute: nextIndex]
            if nextIndex > ring.startIndex, point.timestamp - ring[absolute: nextIndex - 1].timestamp > window.motionGap {
                open = nil  // a gap: the segment cannot be measured
                below = 0
            }
            nextIndex += 1
            if var segment = open {
                let value = segment.direction * point.rate
                if value > threshold {
                    below = 0
                    segment.lastTimestamp = point.timestamp
                    if value > segment.peak {
                        segment.peak = value
                        segment.peakTimestamp = point.timestamp
                    }
                    if point.timestamp - segment.firstTimestamp > configuration.maxRotationDuration { segment.tooLong = true }
                    open = segment
                    continue
                }
                below += 1
                if -value > threshold {
                    found(segment)
                    open = nil
                } else if below >= consistencySamples {
                    found(segment)
                    open = nil
                    continue
                } else {
                    continue
                }
            }
            if abs(point.rate) > threshold {
                let direction: Double = point.rate > 0 ? 1 : -1
                open = RotationSegment(
                    direction: direction, firstTimestamp: point.timestamp, lastTimestamp: point.timestamp, peakTimestamp: point.timestamp,
                    peak: abs(point.rate))
                below = 0
            }
        }
        if final, let segment = open {
            found(segment)
            open = nil
            below = 0
        }
        if let segment = open { return segment.lastTimestamp }
        return ring.last?.timestamp ?? -.infinity
    }
}
