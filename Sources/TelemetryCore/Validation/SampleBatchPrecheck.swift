/// Whether every sample of a batch passes every per-sample rule of ``ValidationRules``: the
/// same comparisons, in one loop over the samples, without a throw, a closure call or a branch
/// per rule.
///
/// Why: the rules run one sample at a time through two closures each (the timestamp and the
/// sample's own checks), which kept them from being inlined: validating a batch was a call or two
/// per sample (800 a second per watch for the accelerometer alone) and a tenth of processing a
/// protobuf batch (docs/performance.md, "Validation in one pass"). The rules still find and
/// describe a problem: when this says no, ``ValidationRules`` checks the batch sample by sample
/// as before, so a valid batch costs one pass and the result never depends on this check. It
/// must only never say yes to a batch the rules reject: each comparison here is the rule's own
/// expression (`norm <= limit`, not a squared shortcut that would round differently at the
/// bound), and NaN fails every one of them as it does there.
enum SampleBatchPrecheck {
    /// True when every timestamp is finite, ≥ 0 and not before the previous one, and every
    /// acceleration's magnitude is at most `limits.maxAcceleration`.
    static func passes(_ samples: [AccelerometerSample], limits: ValidationLimits) -> Bool {
        samples.withUnsafeBufferPointer { samples in
            let maxAcceleration = limits.maxAcceleration
            var previous = -Double.infinity
            // Bits and `&` rather than `&&`: no branch to predict per sample.
            var passes: UInt8 = 1
            for sample in samples {
                let time = sample.timestamp
                passes &= (time >= 0).bit & (time < .infinity).bit & (time >= previous).bit & (sample.acceleration.norm <= maxAcceleration).bit
                previous = time
            }
            return passes == 1
        }
    }

    /// True when every timestamp is finite, ≥ 0 and not before the previous one, every attitude
    /// is a unit quaternion within the tolerance, every vector within its limit and every heading
    /// in [0, 360) degrees.
    static func passes(_ samples: [DeviceMotion], limits: ValidationLimits) -> Bool {
        samples.withUnsafeBufferPointer { samples in
            var previous = -Double.infinity
            var passes: UInt8 = 1
            // Read field by field where the samples lie: a sample is 161 bytes, and a copy of
            // each would be a `memcpy` call.
            for index in samples.indices {
                let time = samples[index].timestamp
                passes &= (time >= 0).bit & (time < .infinity).bit & (time >= previous).bit
                previous = time
                passes &= (abs(samples[index].attitude.norm - 1) <= limits.quaternionNormTolerance).bit
                passes &= (samples[index].rotationRate.norm <= limits.maxRotationRate).bit
                passes &= (samples[index].gravity.norm <= limits.maxGravity).bit
                passes &= (samples[index].userAcceleration.norm <= limits.maxAcceleration).bit
                if let magneticField = samples[index].magneticField { passes &= (magneticField.field.norm <= limits.maxMagneticField).bit }
                if let heading = samples[index].heading { passes &= (heading >= 0).bit & (heading < 360).bit }
            }
            return passes == 1
        }
    }
}

extension Bool {
    /// 1 or 0, to combine conditions with `&` (no short circuit, so no branch).
    @inline(__always)
    fileprivate var bit: UInt8 { self ? 1 : 0 }
}
