#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif
import TelemetryCore

/// Head angles relative to the pose at the start of a script, in degrees: yaw positive to the
/// left (counter-clockwise seen from above), pitch positive chin up, roll about the device Y
/// axis (the convention of ``EulerAngles``).
public struct HeadAngles: Sendable, Equatable {
    /// Degrees; not wrapped (185 is the same direction as −175).
    public var yaw: Double
    /// Degrees.
    public var pitch: Double
    /// Degrees.
    public var roll: Double

    /// Creates angles in degrees.
    public init(yaw: Double = 0, pitch: Double = 0, roll: Double = 0) {
        self.yaw = yaw
        self.pitch = pitch
        self.roll = roll
    }

    /// Looking straight ahead.
    public static let zero = HeadAngles()
}

/// A scripted head movement: holds, eased turns and oscillations (nods, shakes) one after the
/// other, as a pure function of scenario time. The attitude is
/// `Quaternion(yaw: heading + yaw, pitch: pitch, roll: roll)`, so relative to a reference
/// taken while pitch and roll are 0 the head pose is exactly the scripted angles (minus the
/// reference's yaw): the ground truth needs no quaternion math.
struct HeadMotionScript: Sendable {
    enum Axis: Sendable {
        case pitch
        case yaw
    }

    private enum Motion: Sendable {
        case hold(HeadAngles)
        /// Cosine-eased from one pose to another.
        case move(from: HeadAngles, to: HeadAngles)
        /// A sine of `amplitude` degrees about `axis` around `base`, starting at `base`.
        case oscillate(base: HeadAngles, axis: Axis, amplitude: Double, hertz: Double)
    }

    private struct Segment: Sendable {
        var start: Double
        var end: Double
        var motion: Motion
    }

    /// Absolute yaw of the script's zero pose in the reference frame, degrees.
    let heading: Double
    private var segments: [Segment] = []
    /// Where the script ends.
    private(set) var end: Double = 0
    /// The angles at ``end``.
    private(set) var current = HeadAngles.zero

    init(heading: Double) {
        self.heading = heading
    }

    /// Holds the current pose until `time`.
    mutating func hold(until time: Double) {
        append(.hold(current), until: time)
    }

    /// Turns smoothly (cosine easing) to `angles`, arriving at `time`.
    mutating func move(to angles: HeadAngles, until time: Double) {
        append(.move(from: current, to: angles), until: time)
        current = angles
    }

    /// Oscillates about `axis` until `time` (use whole cycles so it ends where it began).
    mutating func oscillate(_ axis: Axis, amplitude: Double, hertz: Double, until time: Double) {
        append(.oscillate(base: current, axis: axis, amplitude: amplitude, hertz: hertz), until: time)
    }

    private mutating func append(_ motion: Motion, until time: Double) {
        precondition(time > end, "script segments must move forward in time")
        segments.append(Segment(start: end, end: time, motion: motion))
        end = time
    }

    /// Angles (degrees) and their rates (degrees/s) at `time`; the last pose is held after the end.
    func angles(at time: Double) -> (angles: HeadAngles, rates: HeadAngles) {
        guard let segment = segments.last(where: { $0.start <= time }) ?? segments.first else { return (.zero, .zero) }
        let elapsed = min(max(time - segment.start, 0), segment.end - segment.start)
        let length = segment.end - segment.start
        switch segment.motion {
        case .hold(let angles):
            return (angles, .zero)
        case .move(let from, let to):
            if time >= segment.end { return (to, .zero) }
            let progress = elapsed / length
            let eased = (1 - cos(Double.pi * progress)) / 2
            let speed = Double.pi / 2 * sin(Double.pi * progress) / length
            return (
                HeadAngles(yaw: from.yaw + (to.yaw - from.yaw) * eased, pitch: from.pitch + (to.pitch - from.pitch) * eased, roll: from.roll + (to.roll - from.roll) * eased),
                HeadAngles(yaw: (to.yaw - from.yaw) * speed, pitch: (to.pitch - from.pitch) * speed, roll: (to.roll - from.roll) * speed)
            )
        case .oscillate(let base, let axis, let amplitude, let hertz):
            if time >= segment.end { return (base, .zero) }
            let phase = 2 * Double.pi * hertz * elapsed
            let offset = amplitude * sin(phase)
            let rate = amplitude * 2 * Double.pi * hertz * cos(phase)
            var angles = base
            var rates = HeadAngles.zero
            switch axis {
            case .pitch:
                angles.pitch += offset
                rates.pitch = rate
            case .yaw:
                angles.yaw += offset
                rates.yaw = rate
            }
            return (angles, rates)
        }
    }

    /// Attitude, rotation rate (rad/s, device frame) and gravity (g, device frame) at `time`.
    func state(at time: Double) -> (attitude: Quaternion, rotationRate: Vector3, gravity: Vector3) {
        let (angles, rates) = angles(at: time)
        let radians = Double.pi / 180
        let roll = angles.roll * radians
        let attitude = Quaternion(yaw: (heading + angles.yaw) * radians, pitch: angles.pitch * radians, roll: roll)
        let gravity = attitude.conjugate.rotate(Vector3(x: 0, y: 0, z: -1))
        // Body rates of R = Rz(yaw)·Rx(pitch)·Ry(roll): yaw' about the vertical (−gravity),
        // pitch' about Ry(roll)ᵀ·x̂ = (cos roll, 0, sin roll), roll' about ŷ (as MotionProfile).
        let pitchAxis = Vector3(x: cos(roll), y: 0, z: sin(roll))
        let rotationRate = pitchAxis * (rates.pitch * radians) + Vector3(x: 0, y: rates.roll * radians, z: 0) - gravity * (rates.yaw * radians)
        return (attitude, rotationRate, gravity)
    }
}
