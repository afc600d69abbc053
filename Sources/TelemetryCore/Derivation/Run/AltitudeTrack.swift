/// The altimeter samples of a workout, in boot-relative time, and the elevation change and gain
/// they show between two wall-clock dates.
///
/// Samples are kept with their own timestamps and mapped to dates only when a segment is
/// measured, so every segment uses the device's clock anchor at its best (it only improves).
struct AltitudeTrack: Sendable, Codable {
    /// One kept sample.
    struct Sample: Sendable, Equatable, Codable {
        /// Seconds since boot.
        var timestamp: Double
        /// m, relative to the device's first reading.
        var altitude: Double
    }

    /// What happened to a sample.
    enum Outcome: Sendable, Equatable, Codable {
        /// Kept.
        case kept
        /// Not newer than the last sample (a redelivery or out of order): ignored.
        case stale
        /// The timestamps went back by more than a second: the device rebooted or restarted its
        /// altimeter. The track was emptied and the sample kept as the first of a new run.
        case restarted
    }

    /// Elevation over an interval, m.
    struct Elevation: Sendable, Equatable, Codable {
        /// Altitude at the end minus altitude at the start.
        var change: Double
        /// Sum of the climbs.
        var gain: Double
    }

    private var samples: BoundedBuffer<Sample>
    /// The newest timestamp received, even when the track has since been emptied.
    private var lastTimestamp: Double?

    /// Creates an empty track.
    /// - Parameter capacity: the most samples kept.
    init(capacity: Int) {
        samples = BoundedBuffer(capacity: capacity)
    }

    /// Samples dropped because the track was full, cumulative.
    var dropped: Int { samples.dropped }

    /// The newest sample's timestamp, seconds since boot.
    var lastSampleTimestamp: Double? { samples.last?.timestamp }

    /// Classifies a sample by its timestamp and keeps it when `keep` (a workout is open).
    /// - Parameters:
    ///   - sample: the altimeter sample.
    ///   - keep: whether to store it.
    /// - Returns: what happened to it.
    mutating func receive(_ sample: AltitudeSample, keep: Bool) -> Outcome {
        var outcome = Outcome.kept
        if let lastTimestamp, sample.timestamp <= lastTimestamp {
            // Frames of a device arrive in its order; a small step back is a redelivery, a large
            // one a new boot (the sensor's timestamps restarted).
            guard lastTimestamp - sample.timestamp > 1 else { return .stale }
            samples.removeAll()
            outcome = .restarted
        }
        lastTimestamp = sample.timestamp
        if keep { samples.append(Sample(timestamp: sample.timestamp, altitude: sample.relativeAltitude)) }
        return outcome
    }

    /// Empties the track (the workout ended); the last timestamp is kept to detect reboots.
    mutating func removeAll() {
        samples.removeAll()
    }

    /// Drops the samples before `timestamp`.
    /// - Parameter timestamp: seconds since boot.
    mutating func forget(before timestamp: Double) {
        samples.removeFirst(samples.partitioningIndex { $0.timestamp >= timestamp })
    }

    /// The elevation change and gain between two timestamps, from the samples inside them.
    ///
    /// The samples are smoothed by a centred moving average of width `smoothing` s (samples
    /// just outside the interval take part in the average, so its ends are not biased toward
    /// the inside), then the gain follows a dead-band rule: the altitude must move `deadband` m
    /// against the current direction to turn; a climb then counts in full, from its low point
    /// to its high point.
    /// - Parameters:
    ///   - start: seconds since boot.
    ///   - end: seconds since boot.
    ///   - smoothing: moving-average width, s (0: none).
    ///   - deadband: m.
    /// - Returns: the elevation, or nil when no sample lies inside.
    func elevation(from start: Double, to end: Double, smoothing: Double, deadband: Double) -> Elevation? {
        let first = samples.partitioningIndex { $0.timestamp >= start }
        let last = samples.partitioningIndex { $0.timestamp > end }
        guard first < last else { return nil }
        let lower = samples.partitioningIndex { $0.timestamp >= start - smoothing / 2 }
        let upper = samples.partitioningIndex { $0.timestamp > end + smoothing / 2 }
        let smoothed = Self.movingAverage(samples[lower..<upper], width: smoothing)[(first - lower)..<(last - lower)]
        return Elevation(change: smoothed[smoothed.endIndex - 1] - smoothed[smoothed.startIndex], gain: Self.gain(smoothed, deadband: deadband))
    }

    /// The centred moving average of the altitudes, each over the samples within ±width/2 of it
    /// (fewer at the ends).
    static func movingAverage(_ slice: BoundedBuffer<Sample>.SubSequence, width: Double) -> [Double] {
        let samples = Array(slice)
        guard width > 0 else { return samples.map(\.altitude) }
        var result: [Double] = []
        result.reserveCapacity(samples.count)
        var low = 0
        var high = 0
        var sum = 0.0
        for sample in samples {
            while high < samples.count, samples[high].timestamp <= sample.timestamp + width / 2 {
                sum += samples[high].altitude
                high += 1
            }
            while samples[low].timestamp < sample.timestamp - width / 2 {
                sum -= samples[low].altitude
                low += 1
            }
            result.append(sum / Double(high - low))
        }
        return result
    }

    /// The sum of the climbs with a dead band (see ``elevation(from:to:smoothing:deadband:)``).
    static func gain(_ altitudes: some Collection<Double>, deadband: Double) -> Double {
        guard var low = altitudes.first else { return 0 }
        var high = low
        var climbing: Bool?  // nil until the altitude first moved by the dead band
        var gain = 0.0
        for altitude in altitudes.dropFirst() {
            switch climbing {
            case true?:
                if altitude > high {
                    gain += altitude - high
                    high = altitude
                } else if high - altitude >= deadband {
                    climbing = false
                    low = altitude
                }
            case false?:
                if altitude < low {
                    low = altitude
                } else if altitude - low >= deadband {
                    climbing = true
                    gain += altitude - low
                    high = altitude
                }
            case nil:
                low = min(low, altitude)
                high = max(high, altitude)
                if altitude - low >= deadband {
                    climbing = true
                    gain += altitude - low
                    high = altitude
                } else if high - altitude >= deadband {
                    climbing = false
                    low = altitude
                }
            }
        }
        return gain
    }
}
