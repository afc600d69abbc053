#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif
import TelemetryCore

/// Standard gravity, m/s² (1 g).
let standardGravity = 9.80665

/// A sine term `amplitude · sin(angularFrequency · τ + phase)`.
struct Oscillation: Sendable {
    var amplitude: Double
    /// rad/s.
    var angularFrequency: Double
    /// rad.
    var phase: Double

    init(amplitude: Double, hertz: Double, phase: Double) {
        self.amplitude = amplitude
        self.angularFrequency = 2 * Double.pi * hertz
        self.phase = phase
    }

    /// The value and its time derivative at `τ` seconds.
    @inline(__always)
    func evaluate(at time: Double) -> (value: Double, rate: Double) {
        let argument = angularFrequency * time + phase
        return (amplitude * sin(argument), amplitude * angularFrequency * cos(argument))
    }
}

/// One Euler angle over time: a fixed base plus a slow and a fast oscillation (rad, rad/s).
struct AngleProfile: Sendable {
    var base: Double
    var slow: Oscillation
    var fast: Oscillation

    @inline(__always)
    func evaluate(at time: Double) -> (value: Double, rate: Double) {
        let slowPart = slow.evaluate(at: time)
        let fastPart = fast.evaluate(at: time)
        return (base + slowPart.value + fastPart.value, slowPart.rate + fastPart.rate)
    }
}

/// Periodic fast rotations about the vertical (racket or bat swings), with an impact spike.
///
/// A swing turns by `amplitude` rad over `duration` s along `u − sin(2πu)/2π` (u = 0…1), whose
/// rate `amplitude/duration · (1 − cos 2πu)` peaks at `2·amplitude/duration` mid-swing.
struct SwingPattern: Sendable {
    /// Seconds from the device's start to the first swing.
    var firstSwing: Double
    /// Seconds between swing starts.
    var interval: Double
    /// Seconds the swing takes.
    var duration: Double
    /// Rotation of one swing, rad.
    var amplitude: Double
    /// Tennis: forehand then backhand, no return. Otherwise the arm returns slowly.
    var alternatesDirection: Bool
    /// Seconds of the slow return after a one-directional swing.
    var returnDuration: Double
    /// Peak of the contact spike along device X, g.
    var impactAcceleration: Double
    /// Where in the swing contact happens, 0…1.
    var impactFraction: Double
    /// Distance from the elbow/shoulder pivot to the watch, m.
    var armRadius: Double

    struct Evaluation {
        /// rad
        var angle = 0.0
        /// rad/s
        var rate = 0.0
        /// rad/s²
        var angularAcceleration = 0.0
        /// g along device X
        var impact = 0.0
    }

    func evaluate(at time: Double) -> Evaluation {
        var result = Evaluation()
        guard time >= firstSwing else { return result }
        let cycle = ((time - firstSwing) / interval).rounded(.down)
        let local = time - firstSwing - cycle * interval
        let direction: Double
        let heldAngle: Double
        if alternatesDirection {
            let isOdd = Int(cycle) % 2 == 1
            direction = isOdd ? -1 : 1
            heldAngle = isOdd ? amplitude : 0
        } else {
            direction = 1
            heldAngle = 0
        }
        if local < duration {
            let u = local / duration
            let turn = 2 * Double.pi * u
            result.angle = heldAngle + direction * amplitude * (u - sin(turn) / (2 * Double.pi))
            result.rate = direction * amplitude / duration * (1 - cos(turn))
            result.angularAcceleration = direction * amplitude / (duration * duration) * 2 * Double.pi * sin(turn)
        } else if !alternatesDirection, local < duration + returnDuration {
            let u = (local - duration) / returnDuration
            let turn = 2 * Double.pi * u
            result.angle = amplitude * (1 - (u - sin(turn) / (2 * Double.pi)))
            result.rate = -amplitude / returnDuration * (1 - cos(turn))
            result.angularAcceleration = -amplitude / (returnDuration * returnDuration) * 2 * Double.pi * sin(turn)
        } else {
            result.angle = alternatesDirection ? heldAngle + direction * amplitude : 0
        }
        let sinceImpact = local - impactFraction * duration
        if impactAcceleration > 0, sinceImpact >= 0, sinceImpact < 0.06 {
            // A damped 120 Hz ring-down, as a ball or bat contact excites the wrist.
            result.impact = impactAcceleration * exp(-sinceImpact / 0.01) * sin(2 * Double.pi * 120 * sinceImpact)
        }
        return result
    }
}

/// Physical state of a device at one instant, noise-free.
struct KinematicState: Sendable {
    /// Device → reference frame, unit quaternion.
    var attitude: Quaternion
    /// Yaw of the attitude, rad (not wrapped).
    var yaw: Double
    /// Device frame, rad/s.
    var rotationRate: Vector3
    /// Device frame, g, unit length.
    var gravity: Vector3
    /// Device frame, g.
    var userAcceleration: Vector3
}

/// How a device moves: Euler angles as smooth functions of time plus optional swings and a
/// periodic bounce. Everything is a pure function of time, so every stream of a device (800 Hz,
/// 200 Hz, 50 Hz, 25 Hz) samples the same motion.
struct MotionProfile: Sendable {
    var yaw: AngleProfile
    var pitch: AngleProfile
    var roll: AngleProfile
    var swing: SwingPattern?
    /// Vertical bounce of steps or kicks: amplitude in g, frequency in Hz.
    var bounce: Oscillation

    /// The state `time` seconds after the device started.
    func state(at time: Double) -> KinematicState {
        var (yawAngle, yawRate) = yaw.evaluate(at: time)
        let (pitchAngle, pitchRate) = pitch.evaluate(at: time)
        let (rollAngle, rollRate) = roll.evaluate(at: time)
        var swingState = SwingPattern.Evaluation()
        if let swing {
            swingState = swing.evaluate(at: time)
            yawAngle += swingState.angle
            yawRate += swingState.rate
        }

        let (sinPitch, cosPitch) = (sin(pitchAngle), cos(pitchAngle))
        let (sinRoll, cosRoll) = (sin(rollAngle), cos(rollAngle))
        // R = Rz(yaw)·Rx(pitch)·Ry(roll); body rate ω = Ry(roll)ᵀ·(Rx(pitch)ᵀ·(0, 0, yaw') + (pitch', 0, 0)) + (0, roll', 0).
        let rotationRate = Vector3(
            x: cosRoll * pitchRate - sinRoll * cosPitch * yawRate,
            y: rollRate + sinPitch * yawRate,
            z: sinRoll * pitchRate + cosRoll * cosPitch * yawRate
        )
        // Gravity (0, 0, −1) in the reference frame seen from the device: −Rᵀ·e_z.
        let gravity = Vector3(x: cosPitch * sinRoll, y: -sinPitch, z: -cosPitch * cosRoll)

        var userAcceleration = -gravity * bounce.evaluate(at: time).value
        if let swing {
            let radius = swing.armRadius / standardGravity
            userAcceleration.x += radius * swingState.angularAcceleration + swingState.impact
            userAcceleration.y -= radius * swingState.rate * swingState.rate
        }
        return KinematicState(
            attitude: Quaternion(yaw: yawAngle, pitch: pitchAngle, roll: rollAngle),
            yaw: yawAngle,
            rotationRate: rotationRate,
            gravity: gravity,
            userAcceleration: userAcceleration
        )
    }
}

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
