#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

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
    /// Peak of the contact spike along device z (out of the screen), g.
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
        /// g along device z
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
