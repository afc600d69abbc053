import Foundation
import TelemetryCore
import TelemetrySimulation

/// Synthetic 50 Hz recorded accelerometer samples for the tremor analyzer's unit tests.
enum TremorSignals {
    /// 2026-01-01T00:00:00Z, a minute boundary.
    static let start = 1_767_225_600.0
    static let standardGravity = 9.80665

    /// Acceleration amplitude, g, of a sinusoidal displacement of `peakToPeak` cm at `frequency` Hz.
    static func amplitude(peakToPeak: Double, frequency: Double) -> Double {
        let omega = 2 * Double.pi * frequency
        return peakToPeak / 200 * omega * omega / standardGravity
    }

    /// A tremor: sinusoidal displacement of `peakToPeak` cm at `frequency` Hz along `direction`.
    struct Tremor {
        var peakToPeak: Double
        var frequency: Double
        var direction = Vector3(x: 1, y: 0, z: 0)
        var phase = 0.3
    }

    /// Samples over `[start, start + seconds)` at 50 Hz, the first `offset` s after `start`,
    /// of a resting forearm with gravity along `gravity`, an optional tremor, `extra(t)` (g, t
    /// in seconds since `start`) and Gaussian noise; samples where `drop(t)` holds are left out.
    static func samples(
        seconds: Double = 60, offset: Double = 0.007, gravity: Vector3 = Vector3(x: 0.2, y: -0.1, z: -0.97).normalized, tremor: Tremor? = nil,
        noise: Double = 0, seed: UInt64 = 1, drop: (Double) -> Bool = { _ in false }, extra: (Double) -> Vector3 = { _ in .zero }
    ) -> [RecordedAccelerometerSample] {
        var random = SplitMix64(seed: seed)
        let count = Int((seconds * 50).rounded())
        var samples: [RecordedAccelerometerSample] = []
        for index in 0..<count {
            let time = offset + Double(index) / 50
            guard time < seconds, !drop(time) else { continue }
            var acceleration = gravity + extra(time)
            if let tremor {
                let wave = sin(2 * Double.pi * tremor.frequency * time + tremor.phase)
                acceleration = acceleration + tremor.direction.normalized * (-amplitude(peakToPeak: tremor.peakToPeak, frequency: tremor.frequency) * wave)
            }
            if noise > 0 {
                acceleration =
                    acceleration
                    + Vector3(
                        x: random.nextGaussian(standardDeviation: noise), y: random.nextGaussian(standardDeviation: noise),
                        z: random.nextGaussian(standardDeviation: noise))
            }
            samples.append(RecordedAccelerometerSample(timestamp: 40_000 + time, startDate: start + time, acceleration: acceleration))
        }
        return samples
    }
}
