import TelemetryCore

extension MotionProfile {
    /// A profile for `device`, with phases and offsets drawn from `random`.
    static func make(for device: SimulatedDevice, random: inout SplitMix64) -> MotionProfile {
        func angle(base: Double, slow: (Double, Double), fast: (Double, Double)) -> AngleProfile {
            AngleProfile(
                base: base,
                slow: Oscillation(amplitude: slow.0, hertz: slow.1, phase: random.nextDouble(in: 0...(2 * Double.pi))),
                fast: Oscillation(amplitude: fast.0, hertz: fast.1, phase: random.nextDouble(in: 0...(2 * Double.pi)))
            )
        }
        let heading = random.nextDouble(in: -Double.pi...Double.pi)
        let wristSign: Double = device.descriptor.wristLocation == .right ? -1 : 1
        let firstSwing = random.nextDouble(in: 0.5...2.5)

        if device.kind == .headphones {
            // Looking around, nodding with steps.
            return MotionProfile(
                yaw: angle(base: heading, slow: (0.5, 0.08), fast: (0.2, 0.31)),
                pitch: angle(base: 0, slow: (0.12, 0.17), fast: (0.03, 1.8)),
                roll: angle(base: 0, slow: (0.06, 0.11), fast: (0.02, 0.9)),
                swing: nil,
                bounce: Oscillation(amplitude: 0.06, hertz: 1.8, phase: 0)
            )
        }
        if device.kind == .phone {
            // Held in front, screen tilted toward the face.
            return MotionProfile(
                yaw: angle(base: heading, slow: (0.3, 0.05), fast: (0.04, 0.9)),
                pitch: angle(base: 0.8, slow: (0.15, 0.07), fast: (0.03, 1.8)),
                roll: angle(base: 0, slow: (0.1, 0.06), fast: (0.03, 0.9)),
                swing: nil,
                bounce: Oscillation(amplitude: 0.15, hertz: 1.8, phase: 0)
            )
        }
        switch device.activity {
        case .tennis:
            return MotionProfile(
                yaw: angle(base: heading, slow: (0.25, 0.11), fast: (0.05, 0.43)),
                pitch: angle(base: -0.2, slow: (0.2, 0.17), fast: (0.05, 1.3)),
                roll: angle(base: 0.3 * wristSign, slow: (0.3, 0.07), fast: (0.08, 0.9)),
                swing: SwingPattern(
                    firstSwing: firstSwing, interval: 3.5, duration: 0.5, amplitude: 2.2, alternatesDirection: true,
                    returnDuration: 0, impactAcceleration: 6, impactFraction: 0.55, armRadius: 0.6
                ),
                bounce: Oscillation(amplitude: 0.2, hertz: 1.4, phase: 0)
            )
        case .baseball:
            return MotionProfile(
                yaw: angle(base: heading, slow: (0.15, 0.05), fast: (0.03, 0.4)),
                pitch: angle(base: -0.1, slow: (0.15, 0.09), fast: (0.03, 1.1)),
                roll: angle(base: 0.2 * wristSign, slow: (0.2, 0.06), fast: (0.05, 0.7)),
                swing: SwingPattern(
                    firstSwing: firstSwing, interval: 8, duration: 0.4, amplitude: 2.6, alternatesDirection: false,
                    returnDuration: 2.5, impactAcceleration: 8, impactFraction: 0.6, armRadius: 0.55
                ),
                bounce: Oscillation(amplitude: 0.05, hertz: 0.5, phase: 0)
            )
        case .underwaterDiving:
            // Slow turns, body roughly horizontal, fin kicks.
            return MotionProfile(
                yaw: angle(base: heading, slow: (0.4, 0.03), fast: (0.05, 0.8)),
                pitch: angle(base: -0.3, slow: (0.15, 0.05), fast: (0.05, 0.8)),
                roll: angle(base: 0.4 * wristSign, slow: (0.2, 0.04), fast: (0.03, 0.6)),
                swing: nil,
                bounce: Oscillation(amplitude: 0.03, hertz: 0.8, phase: 0)
            )
        case .walking:
            return MotionProfile(
                yaw: angle(base: heading, slow: (0.2, 0.04), fast: (0.1, 0.9)),
                pitch: angle(base: -0.4, slow: (0.1, 0.07), fast: (0.25, 0.9)),
                roll: angle(base: 1.2 * wristSign, slow: (0.1, 0.05), fast: (0.05, 1.8)),
                swing: nil,
                bounce: Oscillation(amplitude: 0.15, hertz: 1.8, phase: 0)
            )
        }
    }
}
