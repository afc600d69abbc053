/// A ball contact found in the accelerometer's z axis.
public struct Impact: Sendable, Equatable {
    /// The contact instant: the timestamp of the first original sample that shows the shock.
    public var timestamp: Double
    /// The timestamp of the high-passed signal's peak.
    public var peakTimestamp: Double
    /// The high-passed |z| at the peak, g.
    public var peak: Double

    /// Creates an impact.
    public init(timestamp: Double, peakTimestamp: Double, peak: Double) {
        self.timestamp = timestamp
        self.peakTimestamp = peakTimestamp
        self.peak = peak
    }
}

/// Finds impacts in the high-passed accelerometer z axis of a ``BatchAlignmentWindow``,
/// streaming: each sample is examined once, in order, whatever the batches.
///
/// 1. A candidate is the first sample whose high-passed |z| reaches
///    ``SwingConfiguration/impactThreshold``, at least ``SwingConfiguration/impactRefractory``
///    after the previous impact's peak (its ring-down is not a new impact).
/// 2. The peak is the largest high-passed |z| within ``SwingConfiguration/impactPeakWindow``
///    of the candidate; the detector waits until the window has that much data.
/// 3. The contact instant comes from the original samples: within
///    ``SwingConfiguration/impactOnsetLookback`` before the peak, the first sample whose change
///    from its predecessor reaches ``SwingConfiguration/impactOnsetFraction`` of the largest
///    change there. The filter's group delay and ringing never shift it.
public struct ImpactDetector: Sendable {
    /// The settings in use.
    public let configuration: SwingConfiguration
    /// Absolute accelerometer index of the next sample to examine.
    private var nextIndex = 0
    private var lastPeak = -Double.infinity

    /// Creates a detector.
    public init(configuration: SwingConfiguration) {
        self.configuration = configuration
    }

    /// Starts over (the window was emptied).
    public mutating func reset() {
        nextIndex = 0
        lastPeak = -.infinity
    }

    /// Appends a batch to `window` in chunks of ``BatchAlignmentWindow/accelerometerChunk``
    /// samples, examining each chunk before the next: the window keeps fewer samples than a batch.
    /// - Parameters:
    ///   - samples: a `batched/accelerometer` batch, oldest first.
    ///   - window: the window to append to.
    ///   - found: called with each impact, in time order.
    /// - Returns: every impact with a timestamp up to this time has been reported.
    public mutating func append(_ samples: [AccelerometerSample], to window: inout BatchAlignmentWindow, found: (Impact) -> Void) -> Double {
        var knownThrough = -Double.infinity
        var from = samples.startIndex
        repeat {
            let to = min(samples.endIndex, from + window.accelerometerChunk)
            window.append(accelerometer: samples[from..<to])
            knownThrough = scan(window, found: found)
            from = to
        } while from < samples.endIndex
        return knownThrough
    }

    /// Examines the window's samples not seen yet.
    /// - Parameters:
    ///   - window: the window, after new accelerometer samples were appended.
    ///   - final: no more samples will come: a candidate near the end takes its peak from the
    ///     samples there are.
    ///   - found: called with each impact, in time order.
    /// - Returns: every impact with a timestamp up to this time has been reported.
    public mutating func scan(_ window: BatchAlignmentWindow, final: Bool = false, found: (Impact) -> Void) -> Double {
        let ring = window.accelerometer
        guard let end = ring.last?.timestamp else { return -.infinity }
        nextIndex = max(nextIndex, ring.startIndex)
        let threshold = configuration.impactThreshold
        while nextIndex < ring.endIndex {
            let candidate = ring[absolute: nextIndex]
            guard abs(candidate.filtered) >= threshold, candidate.timestamp - lastPeak >= configuration.impactRefractory else {
                nextIndex += 1
                continue
            }
            let windowEnd = candidate.timestamp + configuration.impactPeakWindow
            if end < windowEnd && !final {
                // Wait for the rest of the peak window; nothing before the onset search can be new.
                return candidate.timestamp - configuration.impactOnsetLookback
            }
            var peakIndex = nextIndex
            var peak = abs(candidate.filtered)
            var index = nextIndex + 1
            while index < ring.endIndex {
                let point = ring[absolute: index]
                if point.timestamp > windowEnd { break }
                if abs(point.filtered) > peak {
                    peak = abs(point.filtered)
                    peakIndex = index
                }
                index += 1
            }
            let peakPoint = ring[absolute: peakIndex]
            let onset = Self.onsetIndex(in: ring, peak: peakIndex, configuration: configuration, gap: window.accelerometerGap)
            found(Impact(timestamp: ring[absolute: onset].timestamp, peakTimestamp: peakPoint.timestamp, peak: peak))
            lastPeak = peakPoint.timestamp
            nextIndex = peakIndex + 1
        }
        return end - configuration.impactOnsetLookback
    }

    /// The absolute index of the first original sample showing the shock that peaks at `peak`.
    /// - Parameters:
    ///   - ring: the accelerometer points.
    ///   - peak: absolute index of the high-passed peak.
    ///   - configuration: look-back and fraction.
    ///   - gap: the look-back stops at a gap.
    /// - Returns: an absolute index in `ring`, at most `peak`.
    static func onsetIndex(in ring: SampleRing<AccelerometerPoint>, peak: Int, configuration: SwingConfiguration, gap: Double) -> Int {
        let earliest = ring[absolute: peak].timestamp - configuration.impactOnsetLookback
        // `first`: the earliest sample whose jump from its predecessor lies inside the look-back
        // and does not span a gap.
        var first = peak + 1
        while first - 1 > ring.startIndex {
            let candidate = ring[absolute: first - 1]
            let previous = ring[absolute: first - 2]
            if candidate.timestamp < earliest || candidate.timestamp - previous.timestamp > gap { break }
            first -= 1
        }
        guard first <= peak else { return peak }
        var largest = 0.0
        for index in first...peak {
            largest = max(largest, abs(ring[absolute: index].z - ring[absolute: index - 1].z))
        }
        let needed = configuration.impactOnsetFraction * largest
        for index in first...peak where abs(ring[absolute: index].z - ring[absolute: index - 1].z) >= needed {
            return index
        }
        return peak
    }
}
