/// One accelerometer sample as the swing detector keeps it: the z axis, raw and high-passed.
public struct AccelerometerPoint: Sendable, Equatable {
    /// Seconds since boot.
    public var timestamp: Double
    /// Raw acceleration along the device z axis (out of the screen, perpendicular to the crown), g.
    public var z: Double
    /// `z` after the high-pass filter, g.
    public var filtered: Double

    /// Creates a point.
    public init(timestamp: Double, z: Double, filtered: Double) {
        self.timestamp = timestamp
        self.z = z
        self.filtered = filtered
    }
}

/// One device-motion sample as the swing detector keeps it: the rotation rate about gravity.
public struct RotationPoint: Sendable, Equatable {
    /// Seconds since boot.
    public var timestamp: Double
    /// `ω · ĝ`, rad/s: the rotation rate about the (unit) gravity direction. Positive is
    /// clockwise seen from above (gravity points down), as in Apple's SwingWatch.
    public var rate: Double

    /// Creates a point.
    public init(timestamp: Double, rate: Double) {
        self.timestamp = timestamp
        self.rate = rate
    }
}

/// The last seconds of a device's two batched streams, on one time axis.
///
/// CMBatchedSensorManager delivers `batched/accelerometer` (800 Hz) and `batched/device-motion`
/// (200 Hz) as separate one-second batches, in either order and sometimes with a batch
/// missing. The window appends each stream's samples in timestamp order to its own fixed ring
/// (``SwingConfiguration/alignmentWindow`` seconds of each), so a swing that starts in one
/// batch and hits in the next is seen as one continuous stretch of both signals, exactly as
/// if it lay inside a batch. The accelerometer's z axis is high-passed on arrival, sample by
/// sample, with the filter's state carried across batches (so the filtered signal does not
/// depend on where batches split).
///
/// Samples not newer than the stream's newest (a replayed or duplicated batch) are dropped
/// and counted. A jump between timestamps larger than ``SwingConfiguration/gapTolerance``
/// sample periods is a gap: the filter restarts after it, and ``isContinuous`` says no across it.
public struct BatchAlignmentWindow: Sendable {
    /// The accelerometer z axis, raw and high-passed, oldest first.
    public private(set) var accelerometer: SampleRing<AccelerometerPoint>
    /// The rotation rate about gravity, oldest first.
    public private(set) var motion: SampleRing<RotationPoint>
    /// Samples dropped because they were not newer than their stream's newest.
    public private(set) var staleSamples: UInt64 = 0
    /// Largest step between accelerometer timestamps that is not a gap, s.
    public let accelerometerGap: Double
    /// Largest step between device-motion timestamps that is not a gap, s.
    public let motionGap: Double
    private let filterDesign: Biquad
    private var filter: Biquad

    /// Creates an empty window sized by `configuration`.
    public init(configuration: SwingConfiguration) {
        let accelerometerCapacity = Int((configuration.alignmentWindow * configuration.accelerometerRate).rounded(.up))
        let motionCapacity = Int((configuration.alignmentWindow * configuration.deviceMotionRate).rounded(.up))
        accelerometer = SampleRing(capacity: max(16, accelerometerCapacity), filler: AccelerometerPoint(timestamp: 0, z: 0, filtered: 0))
        motion = SampleRing(capacity: max(16, motionCapacity), filler: RotationPoint(timestamp: 0, rate: 0))
        accelerometerGap = configuration.gapTolerance / configuration.accelerometerRate
        motionGap = configuration.gapTolerance / configuration.deviceMotionRate
        filterDesign = Biquad.highPass(cutoff: configuration.highPassCutoff, sampleRate: configuration.accelerometerRate)
        filter = filterDesign
    }

    /// Timestamp of the newest accelerometer sample.
    public var accelerometerEnd: Double? { accelerometer.last?.timestamp }
    /// Timestamp of the newest device-motion sample.
    public var motionEnd: Double? { motion.last?.timestamp }

    /// Appends accelerometer samples (oldest first), high-passing z.
    /// - Parameter samples: a `batched/accelerometer` batch.
    public mutating func append(accelerometer samples: [AccelerometerSample]) {
        for sample in samples {
            let z = sample.acceleration.z
            if let last = accelerometer.last {
                guard sample.timestamp > last.timestamp else {
                    staleSamples &+= 1
                    continue
                }
                if sample.timestamp - last.timestamp > accelerometerGap { filter.reset(steadyInput: z) }
            } else {
                filter.reset(steadyInput: z)
            }
            accelerometer.append(AccelerometerPoint(timestamp: sample.timestamp, z: z, filtered: filter.process(z)))
        }
    }

    /// Appends device-motion samples (oldest first) as their rotation rate about gravity.
    /// - Parameter samples: a `batched/device-motion` batch.
    public mutating func append(deviceMotion samples: [DeviceMotion]) {
        for sample in samples {
            if let last = motion.last, sample.timestamp <= last.timestamp {
                staleSamples &+= 1
                continue
            }
            let gravity = sample.gravity.norm
            let rate = gravity > 0 ? sample.rotationRate.dot(sample.gravity) / gravity : 0
            motion.append(RotationPoint(timestamp: sample.timestamp, rate: rate))
        }
    }

    /// Forgets both streams (a new workout, or after the final flush).
    public mutating func removeAll() {
        accelerometer.removeAll()
        motion.removeAll()
        filter = filterDesign
    }

    /// Whether the accelerometer samples cover `[start, end]` without a gap.
    public func accelerometerCovers(from start: Double, through end: Double) -> Bool {
        Self.covers(accelerometer, from: start, through: end, gap: accelerometerGap)
    }

    /// Whether the device-motion samples cover `[start, end]` without a gap.
    public func motionCovers(from start: Double, through end: Double) -> Bool {
        Self.covers(motion, from: start, through: end, gap: motionGap)
    }

    /// The absolute index of the newest sample at or before `time` in `ring`, if any.
    static func lastIndex<Point: TimestampedPoint>(in ring: SampleRing<Point>, atOrBefore time: Double) -> Int? {
        var low = 0
        var high = ring.count  // first position with timestamp > time
        while low < high {
            let middle = (low + high) / 2
            if ring[middle].timestamp <= time { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : ring.startIndex + low - 1
    }

    private static func covers<Point: TimestampedPoint>(_ ring: SampleRing<Point>, from start: Double, through end: Double, gap: Double) -> Bool {
        guard let first = ring.first, let last = ring.last, first.timestamp <= start + gap, last.timestamp >= end - gap else { return false }
        var index = lastIndex(in: ring, atOrBefore: start) ?? ring.startIndex
        var previous = ring[absolute: index].timestamp
        index += 1
        while index < ring.endIndex {
            let timestamp = ring[absolute: index].timestamp
            if timestamp - previous > gap { return false }
            if timestamp >= end { return true }
            previous = timestamp
            index += 1
        }
        return true
    }
}

/// A sample with a timestamp (seconds since boot).
protocol TimestampedPoint {
    var timestamp: Double { get }
}

extension AccelerometerPoint: TimestampedPoint {}
extension RotationPoint: TimestampedPoint {}
