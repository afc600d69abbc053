#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif
import TelemetryCore

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

        let attitude = Quaternion(yaw: yawAngle, pitch: pitchAngle, roll: rollAngle)
        // Gravity, (0, 0, −1) in the reference frame, seen from the device.
        let gravity = attitude.conjugate.rotate(Vector3(x: 0, y: 0, z: -1))
        // With R = Rz(yaw)·Rx(pitch)·Ry(roll), the body rate is yaw' about the vertical (−gravity),
        // pitch' about the pitch axis Ry(roll)ᵀ·x̂ = (cos roll, 0, sin roll), and roll' about ŷ.
        let pitchAxis = Vector3(x: cos(rollAngle), y: 0, z: sin(rollAngle))
        let rotationRate = pitchAxis * pitchRate + Vector3(x: 0, y: rollRate, z: 0) - gravity * yawRate

        var userAcceleration = -gravity * bounce.evaluate(at: time).value
        if let swing {
            let radius = swing.armRadius / standardGravity
            userAcceleration.x += radius * swingState.angularAcceleration
            // The contact rings the wrist along z (out of the screen), where the gateway looks for it.
            userAcceleration.z += swingState.impact
            userAcceleration.y -= radius * swingState.rate * swingState.rate
        }
        return KinematicState(
            attitude: attitude,
            yaw: yawAngle,
            rotationRate: rotationRate,
            gravity: gravity,
            userAcceleration: userAcceleration
        )
    }
}
