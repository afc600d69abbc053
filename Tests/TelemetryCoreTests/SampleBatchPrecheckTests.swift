import Testing
import TelemetrySimulation

@testable import TelemetryCore

/// The one-pass check of a batch (``SampleBatchPrecheck``) against the sample-by-sample rules it
/// stands in front of: seeded batches with values on, just inside and just outside every bound
/// (and NaN, infinities, −0, equal and decreasing timestamps) must get the same verdict and the
/// same problem with and without it.
@Suite struct SampleBatchPrecheckTests {
    private let limits = ValidationLimits()

    /// Values at and around `bound`, plus the ones every rule must refuse.
    private func edges(of bound: Double) -> [Double] {
        [bound, bound.nextUp, bound.nextDown, -bound, 0, -0.0, .nan, .infinity, -.infinity, bound * 0.5]
    }

    /// A vector whose magnitude is at or near `magnitude`, in a random direction (so rounding
    /// lands on either side of the bound).
    private func vector(magnitude: Double, using random: inout SplitMix64) -> Vector3 {
        let direction = Vector3(x: .random(in: -1...1, using: &random), y: .random(in: -1...1, using: &random), z: .random(in: -1...1, using: &random))
        let length = direction.norm
        guard length > 0 else { return Vector3(x: magnitude, y: 0, z: 0) }
        return direction * (magnitude / length)
    }

    private func edgeVector(_ bound: Double, using random: inout SplitMix64) -> Vector3 {
        let value = edges(of: bound).randomElement(using: &random)!
        switch Int.random(in: 0..<3, using: &random) {
        case 0: return Vector3(x: value, y: 0, z: 0)
        case 1: return vector(magnitude: value, using: &random)
        default: return Vector3(x: 0, y: 0, z: value)
        }
    }

    private func timestamp(after previous: Double, using random: inout SplitMix64) -> Double {
        switch Int.random(in: 0..<12, using: &random) {
        case 0: return previous  // equal: allowed
        case 1: return previous.nextDown  // earlier: refused
        case 2: return [-0.0, -1e-300, .nan, .infinity, -.infinity].randomElement(using: &random)!
        default: return previous + 1.0 / 800
        }
    }

    /// Validates `frame` with and without the one-pass check and expects the same result.
    private func expectSameVerdict(_ frame: DecodedFrame, tally: inout (valid: Int, invalid: Int)) {
        let rules = ValidationRules(limits: limits, precheck: false)
        var expected: PayloadProblem?
        do throws(PayloadProblem) { try rules.check(frame) } catch { expected = error }
        let actual = FrameValidator.validate(frame, limits: limits)
        #expect(actual == expected)
        if expected == nil { tally.valid += 1 } else { tally.invalid += 1 }
    }

    @Test("accelerometer batches: the same verdict on every bound, seeded")
    func accelerometer() {
        var random = SplitMix64(seed: 26)
        var tally = (valid: 0, invalid: 0)
        for _ in 0..<2_000 {
            var time = Double.random(in: 0...100, using: &random)
            var samples = (0..<Int.random(in: 1...40, using: &random)).map { _ -> AccelerometerSample in
                time += 1.0 / 800
                return AccelerometerSample(timestamp: time, acceleration: vector(magnitude: .random(in: 0...60, using: &random), using: &random))
            }
            // One or two samples changed: a timestamp, an acceleration at its bound, or both.
            for _ in 0..<Int.random(in: 1...2, using: &random) {
                let index = Int.random(in: 0..<samples.count, using: &random)
                if Bool.random(using: &random) {
                    samples[index].acceleration = edgeVector(limits.maxAcceleration, using: &random)
                } else {
                    let previous = index > 0 ? samples[index - 1].timestamp : 0
                    samples[index].timestamp = timestamp(after: previous, using: &random)
                }
            }
            expectSameVerdict(.batchedAccelerometer(AccelerometerBatch(samples: samples)), tally: &tally)
        }
        // Both outcomes common, or the comparison proves little.
        #expect(tally.valid > 300 && tally.invalid > 300, "valid \(tally.valid), invalid \(tally.invalid)")
    }

    @Test("device-motion batches (batched, motion, headphone): the same verdict on every bound, seeded")
    func deviceMotion() {
        var random = SplitMix64(seed: 2026)
        var tally = (valid: 0, invalid: 0)
        for round in 0..<3_000 {
            var time = Double.random(in: 0...100, using: &random)
            var samples = (0..<Int.random(in: 1...30, using: &random)).map { _ -> DeviceMotion in
                time += 1.0 / 200
                let axis = vector(magnitude: 1, using: &random)
                return DeviceMotion(
                    timestamp: time,
                    attitude: Quaternion(x: axis.x * 0.6, y: axis.y * 0.6, z: axis.z * 0.6, w: 0.8),
                    rotationRate: vector(magnitude: .random(in: 0...40, using: &random), using: &random),
                    gravity: vector(magnitude: .random(in: 0.9...1.1, using: &random), using: &random),
                    userAcceleration: vector(magnitude: .random(in: 0...3, using: &random), using: &random),
                    magneticField: Bool.random(using: &random)
                        ? MagneticField(field: vector(magnitude: 45, using: &random), accuracy: .high) : nil,
                    heading: Bool.random(using: &random) ? .random(in: 0..<360, using: &random) : nil
                )
            }
            let index = Int.random(in: 0..<samples.count, using: &random)
            switch Int.random(in: 0..<8, using: &random) {
            case 0:
                let previous = index > 0 ? samples[index - 1].timestamp : 0
                samples[index].timestamp = timestamp(after: previous, using: &random)
            case 1:
                // A norm at 1 ± the tolerance, or broken.
                let norm = (edges(of: limits.quaternionNormTolerance).randomElement(using: &random)! + 1)
                samples[index].attitude = Quaternion(x: 0, y: 0, z: 0, w: norm)
            case 2: samples[index].rotationRate = edgeVector(limits.maxRotationRate, using: &random)
            case 3: samples[index].gravity = edgeVector(limits.maxGravity, using: &random)
            case 4: samples[index].userAcceleration = edgeVector(limits.maxAcceleration, using: &random)
            case 5: samples[index].magneticField = MagneticField(field: edgeVector(limits.maxMagneticField, using: &random), accuracy: .low)
            case 6: samples[index].heading = [360, 360.0.nextDown, 0, -0.0, -1e-9, .nan, .infinity].randomElement(using: &random)!
            default: break  // valid as made
            }
            let batch = DeviceMotionBatch(samples: samples)
            let frame: DecodedFrame =
                switch round % 3 {
                case 0: .batchedDeviceMotion(batch)
                case 1: .motion(batch)
                default: .headphoneMotion(batch)
                }
            expectSameVerdict(frame, tally: &tally)
        }
        #expect(tally.valid > 500 && tally.invalid > 500, "valid \(tally.valid), invalid \(tally.invalid)")
    }

    @Test("a batch of a length its stream refuses is refused for its length, however valid its samples")
    func length() {
        let samples = (0..<1_601).map { AccelerometerSample(timestamp: Double($0) / 800, acceleration: Vector3(x: 0, y: 0, z: -1)) }
        let problem = FrameValidator.validate(.batchedAccelerometer(AccelerometerBatch(samples: samples)))
        #expect(problem?.reason == .sampleCount)
    }
}
