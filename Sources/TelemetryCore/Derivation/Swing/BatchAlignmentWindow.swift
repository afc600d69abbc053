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

/// The recent samples of a device's two batched streams, on one time axis.
///
/// CMBatchedSensorManager delivers `batched/accelerometer` (800 Hz) and `batched/device-motion`
/// (200 Hz) as separate one-second batches, in either order and sometimes with a batch
/// missing. The window appends each stream's samples in timestamp order, so a swing that
/// starts in one batch and hits in the next is seen as one continuous stretch of both signals,
/// exactly as if it lay inside a batch. What it keeps of each stream is what the swing detector
/// reads back:
///
/// - device motion: ``SwingConfiguration/alignmentWindow`` seconds of the rotation rate about
///   gravity (a ``RotationRing``, 8 bytes a sample), which the start search and the rotation
///   integral scan back over from an impact that may be decided a lagging batch later;
/// - accelerometer: only the newest ``accelerometerCapacity`` samples (a fraction of a second),
///   because the ``ImpactDetector`` examines each sample once, as it arrives, and looks back no
///   further than ``SwingConfiguration/impactOnsetLookback``; batches are appended in chunks of
///   ``accelerometerChunk`` (``ImpactDetector/append(_:to:found:)``). Whether the accelerometer
///   covered a stretch without a gap is answered by a ``StreamCoverage`` record.
///
/// The accelerometer's z axis is high-passed on arrival, sample by sample, with the filter's
/// state carried across batches (so the filtered signal does not depend on where batches split).
///
/// Samples not newer than the stream's newest (a replayed or duplicated batch) are dropped
/// and counted. A jump between timestamps larger than ``SwingConfiguration/gapTolerance``
/// sample periods is a gap: the filter restarts after it, and the coverage says no across it.
public struct BatchAlignmentWindow: Sendable {
    /// The newest accelerometer samples, z raw and high-passed, oldest first.
    public private(set) var accelerometer: SampleRing<AccelerometerPoint>
    /// The rotation rate about gravity, oldest first.
    public private(set) var motion: RotationRing
    /// Where the accelerometer samples cover time without a gap (since the last ``removeAll()``).
    public private(set) var accelerometerCoverage: StreamCoverage
    /// Samples dropped because they were not newer than their stream's newest.
    public private(set) var staleSamples: UInt64 = 0
    /// Largest step between accelerometer timestamps that is not a gap, s.
    public var accelerometerGap: Double { accelerometerCoverage.tolerance }
    /// Largest step between device-motion timestamps that is not a gap, s.
    public let motionGap: Double
    /// The most accelerometer samples appended at once before the impact detector scans them:
    /// half of ``accelerometerCapacity``, and at least four times the samples an impact spans at
    /// the nominal rate (peak window and onset look-back), so a scan never loses a candidate.
    public let accelerometerChunk: Int
    private let filterDesign: Biquad
    private var filter: Biquad

    /// Creates an empty window sized by `configuration`.
    public init(configuration: SwingConfiguration) {
        let impactSpan = (configuration.impactPeakWindow + configuration.impactOnsetLookback) * configuration.accelerometerRate
        accelerometerChunk = max(128, Int((4 * impactSpan).rounded(.up)))
        let motionCapacity = Int((configuration.alignmentWindow * configuration.deviceMotionRate).rounded(.up))
        accelerometer = SampleRing(capacity: 2 * accelerometerChunk, filler: AccelerometerPoint(timestamp: 0, z: 0, filtered: 0))
        motion = RotationRing(capacity: max(16, motionCapacity))
        accelerometerCoverage = StreamCoverage(tolerance: configuration.gapTolerance / configuration.accelerometerRate)
        motionGap = configuration.gapTolerance / configuration.deviceMotionRate
        filterDesign = Biquad.highPass(cutoff: configuration.highPassCutoff, sampleRate: configuration.accelerometerRate)
        filter = filterDesign
    }

    /// The most accelerometer samples held.
    public var accelerometerCapacity: Int { accelerometer.capacity }

    /// Timestamp of the newest accelerometer sample.
    public var accelerometerEnd: Double? { accelerometer.last?.timestamp }
    /// Timestamp of the newest device-motion sample.
    public var motionEnd: Double? { motion.last?.timestamp }

    /// Appends accelerometer samples (oldest first), high-passing z. Samples beyond
    /// ``accelerometerCapacity`` overwrite the oldest: append a batch through
    /// ``ImpactDetector/append(_:to:found:)``, which scans between chunks.
    /// - Parameter samples: a `batched/accelerometer` batch or a part of one.
    public mutating func append(accelerometer samples: some Collection<AccelerometerSample>) {
        // On locals, written back after the loop: the ring's storage is lent once for the whole
        // chunk (``SampleRing/append(count:_:)``) rather than once per sample. The coverage copy
        // shares its storage until a gap is recorded (rare), so it costs no copy per chunk.
        var newest = accelerometer.last?.timestamp
        var filter = self.filter
        var coverage = accelerometerCoverage
        var stale: UInt64 = 0
        let gap = accelerometerGap
        var position = samples.startIndex
        accelerometer.append(count: samples.count) { _ in
            let sample = samples[position]
            samples.formIndex(after: &position)
            let z = sample.acceleration.z
            if let newest {
                guard sample.timestamp > newest else {
                    stale &+= 1
                    return nil
                }
                if sample.timestamp - newest > gap { filter.reset(steadyInput: z) }
            } else {
                filter.reset(steadyInput: z)
            }
            newest = sample.timestamp
            coverage.extend(to: sample.timestamp)
            return AccelerometerPoint(timestamp: sample.timestamp, z: z, filtered: filter.process(z))
        }
        self.filter = filter
        accelerometerCoverage = coverage
        staleSamples &+= stale
    }

    /// Appends device-motion samples (oldest first) as their rotation rate about gravity.
    /// - Parameter samples: a `batched/device-motion` batch.
    public mutating func append(deviceMotion samples: [DeviceMotion]) {
        // Read field by field where the samples lie: `for sample in samples` copied each
        // 161-byte sample (a `memcpy` call) to read three of its fields.
        samples.withUnsafeBufferPointer { samples in
            for index in samples.indices {
                let gravity = samples[index].gravity
                let norm = gravity.norm
                let rate = norm > 0 ? samples[index].rotationRate.dot(gravity) / norm : 0
                if !motion.append(timestamp: samples[index].timestamp, rate: rate) { staleSamples &+= 1 }
            }
        }
    }

    /// Forgets both streams (a new workout, or after the final flush).
    public mutating func removeAll() {
        accelerometer.removeAll()
        accelerometerCoverage.removeAll()
        motion.removeAll()
        filter = filterDesign
    }

    /// Whether the accelerometer samples cover `[start, end]` without a gap.
    public func accelerometerCovers(from start: Double, through end: Double) -> Bool {
        accelerometerCoverage.covers(from: start, through: end)
    }

    /// Whether the device-motion samples cover `[start, end]` without a gap.
    public func motionCovers(from start: Double, through end: Double) -> Bool {
        guard let first = motion.first, let last = motion.last, first.timestamp <= start + motionGap, last.timestamp >= end - motionGap else {
            return false
        }
        var index = motion.lastIndex(atOrBefore: start) ?? motion.startIndex
        var previous = motion[absolute: index].timestamp
        index += 1
        while index < motion.endIndex {
            let timestamp = motion[absolute: index].timestamp
            if timestamp - previous > motionGap { return false }
            if timestamp >= end { return true }
            previous = timestamp
            index += 1
        }
        return true
    }
}
