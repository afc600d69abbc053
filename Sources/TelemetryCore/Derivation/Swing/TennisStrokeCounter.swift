/// Counts forehands and backhands from per-sample device motion: Apple's SwingWatch rule
/// (WWDC16 session 713), generalised from its fixed 50 Hz to any sample rate.
///
/// Per sample, the rotation rate about gravity `r = ω·ĝ` enters a sliding window of
/// ``TennisConfiguration/window`` seconds. Each sample is weighted by its own interval (the
/// step from the previous timestamp), so `Σ r·Δt` is the rotation over the window at any rate;
/// SwingWatch's `sum × 1/50` is the 50 Hz case. Once the window is full:
///
/// - accumulated `< −yawThreshold` and peak (`min r`) `< −rateThreshold`: a counter-clockwise
///   swing (seen from above): a **forehand on the right wrist, a backhand on the left**;
/// - accumulated `> yawThreshold` and peak (`max r`) `> rateThreshold`: clockwise: a
///   **forehand on the left wrist, a backhand on the right**;
///
/// counted only when no stroke was counted since the last re-arm. Without a known wrist (a
/// `hello` without `wristLocation`) the stroke is ``TennisStrokeKind/unknown``, with its
/// rotation, and counted apart: guessing a wrist would swap every forehand and backhand. Re-arm: when the mean rate
/// of the newest half window is below `resetFraction × rateThreshold` in magnitude, the flag
/// clears and the window empties (it must fill again before the next stroke), so the return
/// swing is never counted. A gap longer than ``TennisConfiguration/maxSampleGap`` empties the
/// window too. The crown's side does not matter: `ω·ĝ` does not depend on how the watch sits
/// on the wrist, only on which wrist (the arm's rotation sense for a forehand).
public struct TennisStrokeCounter: Sendable {
    private struct Entry: Sendable {
        var timestamp: Double
        var rate: Double
        var interval: Double
    }

    /// The settings in use.
    public let configuration: TennisConfiguration
    /// Forehands counted since the last ``resetCounts()``.
    public private(set) var forehandCount = 0
    /// Backhands counted since the last ``resetCounts()``.
    public private(set) var backhandCount = 0
    /// Strokes of unknown side (wrist not known) counted since the last ``resetCounts()``.
    public private(set) var unknownCount = 0
    private var entries: SampleRing<Entry>
    private var lastTimestamp: Double?
    /// `Σ rate·interval` over the window.
    private var accumulated = 0.0
    /// `Σ interval` over the window.
    private var covered = 0.0
    private var recentDetection = false

    /// Creates a counter with zero counts.
    public init(configuration: TennisConfiguration) {
        self.configuration = configuration
        let capacity = Int((configuration.window * configuration.maxSampleRate).rounded(.up)) + 2
        entries = SampleRing(capacity: max(8, capacity), filler: Entry(timestamp: 0, rate: 0, interval: 0))
    }

    /// Creates a counter that continues a workout's counts with an empty window (a restored
    /// device: the window's few seconds of samples are not kept across a restart).
    public init(configuration: TennisConfiguration, forehands: Int, backhands: Int, unknown: Int) {
        self.init(configuration: configuration)
        forehandCount = forehands
        backhandCount = backhands
        unknownCount = unknown
    }

    /// Zeroes the counts and the window (a new workout).
    public mutating func resetCounts() {
        forehandCount = 0
        backhandCount = 0
        unknownCount = 0
        recentDetection = false
        lastTimestamp = nil
        clearWindow()
    }

    /// Feeds one device-motion sample.
    /// - Parameters:
    ///   - sample: the next `motion` sample (older or equal timestamps are ignored).
    ///   - wrist: the wrist the watch is worn on; nil when its `hello` does not say (strokes are
    ///     then ``TennisStrokeKind/unknown``, with their rotation).
    /// - Returns: the stroke this sample completes, if any.
    public mutating func process(_ sample: DeviceMotion, wrist: WristLocation?) -> TennisStroke? {
        let gravity = sample.gravity.norm
        let rate = gravity > 0 ? sample.rotationRate.dot(sample.gravity) / gravity : 0
        return process(rate: rate, timestamp: sample.timestamp, wrist: wrist)
    }

    /// Feeds one rotation rate about gravity.
    /// - Parameters:
    ///   - rate: `ω·ĝ`, rad/s.
    ///   - timestamp: seconds since boot (older or equal timestamps are ignored).
    ///   - wrist: the wrist the watch is worn on, or nil when not known.
    /// - Returns: the stroke this sample completes, if any.
    public mutating func process(rate: Double, timestamp: Double, wrist: WristLocation?) -> TennisStroke? {
        var interval = 0.0
        if let lastTimestamp {
            guard timestamp > lastTimestamp else { return nil }
            interval = timestamp - lastTimestamp
            if interval > configuration.maxSampleGap {
                clearWindow()
                interval = 0
            }
        }
        lastTimestamp = timestamp
        append(Entry(timestamp: timestamp, rate: rate, interval: interval))

        // Full: the window spans its length (within half a sample interval). SwingWatch
        // evaluates nothing, re-arming included, until its buffer is full.
        guard covered >= configuration.window - interval / 2 else { return nil }
        let stroke = recentDetection ? nil : classify(timestamp: timestamp, wrist: wrist)
        if recentDetection, abs(recentMean()) < configuration.resetFraction * configuration.rateThreshold {
            recentDetection = false
            clearWindow()
        }
        return stroke
    }

    // MARK: Private

    private mutating func append(_ entry: Entry) {
        if entries.count == entries.capacity { dropOldest() }
        entries.append(entry)
        accumulated += entry.rate * entry.interval
        covered += entry.interval
        // Keep exactly the newest `window` seconds of intervals.
        while entries.count > 1, covered - entries[0].interval >= configuration.window - entry.interval / 2 {
            dropOldest()
        }
    }

    private mutating func dropOldest() {
        let oldest = entries[0]
        accumulated -= oldest.rate * oldest.interval
        covered -= oldest.interval
        entries.removeFirst()
    }

    private mutating func clearWindow() {
        entries.removeAll()
        accumulated = 0
        covered = 0
    }

    private mutating func classify(timestamp: Double, wrist: WristLocation?) -> TennisStroke? {
        let clockwise: Bool
        let peak: Double
        if accumulated > configuration.yawThreshold {
            peak = maximumRate()
            guard peak > configuration.rateThreshold else { return nil }
            clockwise = true
        } else if accumulated < -configuration.yawThreshold {
            peak = minimumRate()
            guard peak < -configuration.rateThreshold else { return nil }
            clockwise = false
        } else {
            return nil
        }
        let rotation: TennisStrokeRotation = clockwise ? .clockwise : .counterclockwise
        let kind = rotation.kind(on: wrist)
        switch kind {
        case .forehand: forehandCount += 1
        case .backhand: backhandCount += 1
        case .unknown: unknownCount += 1
        }
        recentDetection = true
        return TennisStroke(
            kind: kind, rotation: rotation, timestamp: timestamp, forehandCount: forehandCount, backhandCount: backhandCount,
            unknownCount: unknownCount, accumulatedRotation: accumulated, peakRate: peak)
    }

    private func maximumRate() -> Double {
        var result = -Double.infinity
        for position in 0..<entries.count { result = max(result, entries[position].rate) }
        return result
    }

    private func minimumRate() -> Double {
        var result = Double.infinity
        for position in 0..<entries.count { result = min(result, entries[position].rate) }
        return result
    }

    /// The mean rate of the newest half window (SwingWatch: the newest 25 of 50 samples).
    private func recentMean() -> Double {
        let half = configuration.window / 2
        var sum = 0.0
        var count = 0.0
        var span = 0.0
        var position = entries.count - 1
        while position >= 0 {
            let entry = entries[position]
            sum += entry.rate
            count += 1
            span += entry.interval
            if span >= half - entry.interval / 2 { break }
            position -= 1
        }
        return count > 0 ? sum / count : 0
    }
}
