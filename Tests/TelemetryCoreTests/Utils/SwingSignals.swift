import Foundation
import TelemetryCore

/// Synthetic batched samples from closures, for the swing detectors' unit tests.
enum SwingSignals {
    /// Accelerometer samples at `rate` over `[start, end)`; `z(t)` in g (x = y = 0).
    static func accelerometer(from start: Double, to end: Double, rate: Double = 800, z: (Double) -> Double) -> [AccelerometerSample] {
        let count = Int(((end - start) * rate).rounded())
        return (0..<count).map { index in
            let time = start + Double(index) / rate
            return AccelerometerSample(timestamp: time, acceleration: Vector3(x: 0, y: 0, z: z(time)))
        }
    }

    /// Device-motion samples at `rate` over `[start, end)` of a watch lying flat (gravity
    /// (0, 0, −1)) whose rotation rate about gravity, `ω·ĝ`, is `rate(t)`.
    static func motion(from start: Double, to end: Double, sampleRate: Double = 200, rate: (Double) -> Double) -> [DeviceMotion] {
        let count = Int(((end - start) * sampleRate).rounded())
        return (0..<count).map { index in
            let time = start + Double(index) / sampleRate
            return DeviceMotion(
                timestamp: time, attitude: .identity, rotationRate: Vector3(x: 0, y: 0, z: -rate(time)), gravity: Vector3(x: 0, y: 0, z: -1),
                userAcceleration: .zero)
        }
    }

    /// A damped ring-down starting at `time` (0 before it), as a ball contact felt at the wrist, g.
    static func ringDown(at time: Double, amplitude: Double = 6, frequency: Double = 150, decay: Double = 0.006) -> (Double) -> Double {
        { now in
            let since = now - time
            guard since >= 0 else { return 0 }
            return amplitude * exp(-since / decay) * sin(2 * Double.pi * frequency * since)
        }
    }

    /// A linear-onset swing about gravity: 0 before `onset`, rising at `slope` rad/s² to `peak`
    /// at the contact, then decaying linearly over `followThrough`.
    static func swingRate(onset: Double, slope: Double, peak: Double, followThrough: Double = 0.2, direction: Double = 1) -> (Double) -> Double {
        let rise = peak / slope
        return { now in
            let tau = now - onset
            if tau <= 0 { return 0 }
            if tau <= rise { return direction * slope * tau }
            if tau <= rise + followThrough { return direction * peak * (1 - (tau - rise) / followThrough) }
            return 0
        }
    }
}
