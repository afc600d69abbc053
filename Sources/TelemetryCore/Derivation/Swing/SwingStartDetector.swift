/// Where a swing started, found by ``SwingStartDetector``.
public struct SwingStart: Sendable, Equatable {
    /// The onset of the forward rotation, seconds since boot: the threshold crossing moved back
    /// along the rising edge to zero rate (by at most ``SwingConfiguration/maxOnsetExtrapolation``).
    public var timestamp: Double
    /// When `|ω·ĝ|` crossed ``SwingConfiguration/startRate`` (interpolated between samples).
    public var crossingTimestamp: Double
    /// The swing's direction: +1 clockwise seen from above (`ω·ĝ > 0`), −1 counter-clockwise.
    public var direction: Double

    /// Creates a start.
    public init(timestamp: Double, crossingTimestamp: Double, direction: Double) {
        self.timestamp = timestamp
        self.crossingTimestamp = crossingTimestamp
        self.direction = direction
    }
}

/// Finds a swing's start by scanning the rotation rate about gravity backwards from an
/// anchor (the impact, or a miss's peak).
///
/// 1. The swing's direction is the sign of the first sample, going back from the anchor by at
///    most ``SwingConfiguration/impactSlack``, whose `|ω·ĝ|` exceeds
///    ``SwingConfiguration/startRate`` (none: the anchor is not in a swing).
/// 2. Going further back, the swing continues while the rate in that direction exceeds the
///    threshold; it starts where the rate has stayed at or below it for
///    ``SwingConfiguration/startConsistency`` (so a single noisy sample does not end the scan).
///    A scan longer than ``SwingConfiguration/maxSwingDuration`` is not a swing; one that runs
///    into a gap or the start of the window cannot be measured.
/// 3. The crossing is interpolated linearly between the last sample below and the first above
///    the threshold; a least-squares line through the rising edge (from that sample up to the
///    first one reaching three times the threshold, at most eight samples) is extrapolated back
///    to zero rate: the onset of the forward rotation.
public struct SwingStartDetector: Sendable {
    /// Why no start was found.
    public enum Failure: Sendable, Equatable, Error {
        /// The rate near the anchor never exceeds the threshold: no swing.
        case noRotation
        /// The rate exceeds the threshold for longer than the longest swing.
        case tooLong
        /// The samples before the anchor have a gap or are no longer in the window.
        case notCovered
    }

    /// The settings in use.
    public let configuration: SwingConfiguration
    private let consistencySamples: Int

    /// Creates a detector.
    public init(configuration: SwingConfiguration) {
        self.configuration = configuration
        consistencySamples = max(1, Int((configuration.startConsistency * configuration.deviceMotionRate).rounded()))
    }

    /// Finds the start of the swing that `anchor` lies in.
    /// - Parameters:
    ///   - window: the aligned window.
    ///   - anchor: the impact (or a miss's peak), seconds since boot.
    /// - Returns: the start, or why there is none.
    public func findStart(in window: BatchAlignmentWindow, anchor: Double) -> Result<SwingStart, Failure> {
        let ring = window.motion
        let threshold = configuration.startRate
        guard let anchorIndex = ring.lastIndex(atOrBefore: anchor),
            anchor - ring[absolute: anchorIndex].timestamp <= window.motionGap
        else { return .failure(.notCovered) }

        // 1. Direction.
        var index = anchorIndex
        while abs(ring[absolute: index].rate) <= threshold {
            guard anchor - ring[absolute: index].timestamp <= configuration.impactSlack, index > ring.startIndex else {
                return .failure(.noRotation)
            }
            index -= 1
        }
        let direction: Double = ring[absolute: index].rate > 0 ? 1 : -1

        // 2. Backwards while the rate exceeds the threshold, consistently.
        var firstAbove = index
        var below = 0
        while below < consistencySamples {
            guard index > ring.startIndex else { return .failure(.notCovered) }
            let point = ring[absolute: index - 1]
            if ring[absolute: index].timestamp - point.timestamp > window.motionGap { return .failure(.notCovered) }
            index -= 1
            if direction * point.rate > threshold {
                firstAbove = index
                below = 0
                if anchor - point.timestamp > configuration.maxSwingDuration { return .failure(.tooLong) }
            } else {
                below += 1
            }
        }

        // 3. Crossing and onset.
        let before = ring[absolute: firstAbove - 1]
        let after = ring[absolute: firstAbove]
        let valueBefore = direction * before.rate
        let valueAfter = direction * after.rate
        let fraction = valueAfter > valueBefore ? (threshold - valueBefore) / (valueAfter - valueBefore) : 1
        let crossing = before.timestamp + min(1, max(0, fraction)) * (after.timestamp - before.timestamp)
        var onset = crossing
        if configuration.maxOnsetExtrapolation > 0 {
            var count = 0.0
            var sumT = 0.0
            var sumV = 0.0
            var sumTT = 0.0
            var sumTV = 0.0
            var edge = firstAbove - 1
            while edge < ring.endIndex, count < 8 {
                let point = ring[absolute: edge]
                if point.timestamp > anchor { break }
                let time = point.timestamp - crossing  // centred for numerical stability
                let value = direction * point.rate
                count += 1
                sumT += time
                sumV += value
                sumTT += time * time
                sumTV += time * value
                if value >= 3 * threshold { break }
                edge += 1
            }
            let denominator = count * sumTT - sumT * sumT
            if count >= 2, denominator > 0 {
                let slope = (count * sumTV - sumT * sumV) / denominator
                if slope > 0 {
                    let intercept = (sumV - slope * sumT) / count
                    let zero = crossing - intercept / slope
                    onset = min(crossing, max(zero, crossing - configuration.maxOnsetExtrapolation))
                }
            }
        }
        return .success(SwingStart(timestamp: onset, crossingTimestamp: crossing, direction: direction))
    }

    /// The peak rate and the rotation in a direction over `[start, end]`.
    /// - Parameters:
    ///   - window: the aligned window.
    ///   - start: seconds since boot.
    ///   - end: seconds since boot.
    ///   - direction: +1 or −1 (``SwingStart/direction``).
    /// - Returns: the largest `direction·ω·ĝ` of the samples in the interval (rad/s) and the
    ///   integral of `direction·ω·ĝ` over it (rad, trapezoids, clipped to the interval).
    public static func rotation(
        in window: BatchAlignmentWindow, from start: Double, to end: Double, direction: Double
    ) -> (peak: Double, angle: Double) {
        let ring = window.motion
        guard end > start, var index = ring.lastIndex(atOrBefore: start) ?? (ring.isEmpty ? nil : ring.startIndex) else {
            return (0, 0)
        }
        var peak = 0.0
        var angle = 0.0
        while index + 1 < ring.endIndex {
            let left = ring[absolute: index]
            let right = ring[absolute: index + 1]
            if left.timestamp >= end { break }
            let from = max(left.timestamp, start)
            let to = min(right.timestamp, end)
            if to > from {
                let span = right.timestamp - left.timestamp
                let valueFrom = direction * (left.rate + (right.rate - left.rate) * (from - left.timestamp) / span)
                let valueTo = direction * (left.rate + (right.rate - left.rate) * (to - left.timestamp) / span)
                angle += (valueFrom + valueTo) / 2 * (to - from)
            }
            if left.timestamp >= start { peak = max(peak, direction * left.rate) }
            if right.timestamp <= end { peak = max(peak, direction * right.rate) }
            index += 1
        }
        return (peak, angle)
    }
}
