#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif
import TelemetryCore

/// A ball contact felt at the wrist: a damped ring-down starting at zero at the contact
/// instant, mostly along the device z axis (out of the screen).
struct ImpactShape: Sendable {
    /// Session seconds of the contact.
    var time: Double
    /// Amplitude along z, g.
    var amplitude: Double
    /// Ring frequency, Hz.
    var frequency: Double
    /// Decay time constant, s.
    var decay: Double
    /// +1 or −1: the first swing of the ring-down.
    var sign: Double

    /// The acceleration (device frame, g) at session time `time`.
    func acceleration(at now: Double) -> Vector3 {
        let since = now - time
        guard since >= 0, since < 12 * decay else { return .zero }
        let value = sign * amplitude * exp(-since / decay) * sin(2 * Double.pi * frequency * since)
        return Vector3(x: 0.3 * value, y: -0.2 * value, z: value)
    }
}

/// One swing about the vertical: load, forward swing to contact, follow-through, hold, slow
/// return. Rates are along the yaw axis (world vertical, up), rad/s; `direction` is the sign of
/// the forward yaw rate.
///
/// The forward rate rises as `R·sin(π/2·τ/T)` from the onset (`τ = 0`, the ground-truth start)
/// to the contact (`τ = T`, the ground-truth impact and time to contact), then decays as
/// `k·R·cos(π/2·(τ−T)/F)` (`k < 1` after a contact, which takes speed off the bat). The load
/// before it turns slightly backwards and ends at zero rate exactly at the onset.
struct SwingShape: Sendable {
    var onset: Double
    var loadDuration: Double
    var loadRate: Double
    var timeToContact: Double
    var peakRate: Double
    var followThrough: Double
    var followFactor: Double
    var hold: Double
    var returnDuration: Double
    /// Fraction of the forward rotation turned back in the return.
    var returnFraction: Double
    var direction: Double
    /// Distance from the body's rotation axis to the watch, m.
    var radius: Double
    var impact: ImpactShape?

    /// Rotation from the onset to the contact instant, rad.
    var angleToContact: Double { 2 * peakRate * timeToContact / Double.pi }
    /// Rotation of the follow-through, rad.
    var followAngle: Double { 2 * followFactor * peakRate * followThrough / Double.pi }
    private var loadAngle: Double { -2 * loadRate * loadDuration / Double.pi }
    private var returnAngle: Double { returnFraction * (angleToContact + followAngle) }

    var begin: Double { onset - loadDuration }
    var end: Double { onset + timeToContact + followThrough + hold + returnDuration }

    /// Yaw relative to before the load (rad), yaw rate (rad/s) and yaw acceleration (rad/s²).
    func evaluate(at now: Double) -> (angle: Double, rate: Double, acceleration: Double) {
        let tau = now - onset
        let pi = Double.pi
        var angle = 0.0
        var rate = 0.0
        var acceleration = 0.0
        let contactEnd = timeToContact
        let followEnd = contactEnd + followThrough
        let holdEnd = followEnd + hold
        let returnEnd = holdEnd + returnDuration
        if tau < -loadDuration {
            // before the swing
        } else if tau < 0 {
            let phase = pi * (tau + loadDuration) / loadDuration
            angle = -loadRate * loadDuration / pi * (1 - cos(phase))
            rate = -loadRate * sin(phase)
            acceleration = -loadRate * pi / loadDuration * cos(phase)
        } else if tau <= contactEnd {
            let phase = pi / 2 * tau / timeToContact
            angle = loadAngle + peakRate * 2 * timeToContact / pi * (1 - cos(phase))
            rate = peakRate * sin(phase)
            acceleration = peakRate * pi / (2 * timeToContact) * cos(phase)
        } else if tau <= followEnd {
            let phase = pi / 2 * (tau - contactEnd) / followThrough
            angle = loadAngle + angleToContact + followFactor * peakRate * 2 * followThrough / pi * sin(phase)
            rate = followFactor * peakRate * cos(phase)
            acceleration = -followFactor * peakRate * pi / (2 * followThrough) * sin(phase)
        } else if tau <= holdEnd {
            angle = loadAngle + angleToContact + followAngle
        } else if tau <= returnEnd {
            let u = (tau - holdEnd) / returnDuration
            let turn = 2 * pi * u
            angle = loadAngle + angleToContact + followAngle - returnAngle * (u - sin(turn) / (2 * pi))
            rate = -returnAngle / returnDuration * (1 - cos(turn))
            acceleration = -returnAngle / returnDuration * 2 * pi / returnDuration * sin(turn)
        } else {
            angle = loadAngle + angleToContact + followAngle - returnAngle
        }
        return (direction * angle, direction * rate, direction * acceleration)
    }
}

/// A smooth on/off envelope: 0 outside `[begin, end]`, 1 inside after a `ramp`-second
/// smoothstep at both ends. Returns the value and its time derivative.
struct Envelope: Sendable {
    var begin: Double
    var end: Double
    var ramp: Double

    func evaluate(at now: Double) -> (value: Double, rate: Double) {
        guard now > begin, now < end else { return (0, 0) }
        let rise = (now - begin) / ramp
        let fall = (end - now) / ramp
        if rise < 1 {
            return (rise * rise * (3 - 2 * rise), 6 * rise * (1 - rise) / ramp)
        }
        if fall < 1 {
            return (fall * fall * (3 - 2 * fall), -6 * fall * (1 - fall) / ramp)
        }
        return (1, 0)
    }
}

/// A sinusoid `amplitude·sin(2π·hertz·t + phase)` switched by an envelope: value and rate.
struct EnvelopedOscillation: Sendable {
    var envelope: Envelope
    var amplitude: Double
    var hertz: Double
    var phase: Double

    func evaluate(at now: Double) -> (value: Double, rate: Double) {
        let (gain, gainRate) = envelope.evaluate(at: now)
        guard gain > 0 || gainRate != 0 else { return (0, 0) }
        let omega = 2 * Double.pi * hertz
        let argument = omega * now + phase
        let wave = amplitude * sin(argument)
        return (gain * wave, gainRate * wave + gain * amplitude * omega * cos(argument))
    }
}

/// Everything that moves the wrist during a session, as pure functions of session time.
///
/// Episodes (swings, waving, walking, impacts) are sorted and do not overlap within a list;
/// a ``Cursor`` walks each list in time order, so evaluating a whole stream costs O(samples).
struct SwingMotionModel: Sendable {
    /// Where a stream's evaluation has got to in each episode list.
    struct Cursor: Sendable {
        var swing = 0
        var yaw = 0
        var pitch = 0
        var roll = 0
        var bounce = 0
        var impact = 0
    }

    /// Base attitude of the forearm: pitch and roll, rad; heading, rad.
    var basePitch: Double
    var baseRoll: Double
    var heading: Double
    /// Always-on small sways of yaw, pitch and roll.
    var yawSway: Oscillation
    var pitchSway: Oscillation
    var rollSway: Oscillation
    private(set) var swings: [SwingShape] = []
    /// Yaw each swing leaves behind, summed over the swings before it.
    private var settledYaw: [Double] = []
    /// Yaw oscillations (waving).
    private(set) var yawOscillations: [EnvelopedOscillation] = []
    /// Pitch (arm swing while walking) and roll oscillations.
    private(set) var pitchOscillations: [EnvelopedOscillation] = []
    private(set) var rollOscillations: [EnvelopedOscillation] = []
    /// Vertical bounce while walking, g.
    private(set) var bounces: [EnvelopedOscillation] = []
    private(set) var impacts: [ImpactShape] = []
    /// Device direction of the tangential acceleration of a swing (unit, device frame).
    var tangentialDirection: Vector3

    init(
        basePitch: Double, baseRoll: Double, heading: Double, yawSway: Oscillation, pitchSway: Oscillation, rollSway: Oscillation,
        tangentialDirection: Vector3
    ) {
        self.basePitch = basePitch
        self.baseRoll = baseRoll
        self.heading = heading
        self.yawSway = yawSway
        self.pitchSway = pitchSway
        self.rollSway = rollSway
        self.tangentialDirection = tangentialDirection
    }

    /// Adds a swing after every swing added so far.
    mutating func add(_ swing: SwingShape) {
        let previous = swings.last.map { $0.evaluate(at: $0.end + 1).angle } ?? 0
        settledYaw.append((settledYaw.last ?? 0) + previous)
        swings.append(swing)
        if let impact = swing.impact { add(impact) }
    }

    /// Adds an impact after every impact added so far.
    mutating func add(_ impact: ImpactShape) { impacts.append(impact) }

    /// Adds waving (yaw), arm swing (pitch, roll) or bounce episodes, each after the last of its kind.
    mutating func add(
        yaw: EnvelopedOscillation? = nil, pitch: EnvelopedOscillation? = nil, roll: EnvelopedOscillation? = nil, bounce: EnvelopedOscillation? = nil
    ) {
        if let yaw { yawOscillations.append(yaw) }
        if let pitch { pitchOscillations.append(pitch) }
        if let roll { rollOscillations.append(roll) }
        if let bounce { bounces.append(bounce) }
    }

    private static func active(_ list: [EnvelopedOscillation], _ index: inout Int, at now: Double) -> (value: Double, rate: Double) {
        while index + 1 < list.count, list[index].envelope.end <= now { index += 1 }
        guard index < list.count else { return (0, 0) }
        return list[index].evaluate(at: now)
    }

    /// The noise-free state at session time `now`; call with non-decreasing times per cursor.
    func state(at now: Double, cursor: inout Cursor) -> (attitude: Quaternion, rotationRate: Vector3, gravity: Vector3, userAcceleration: Vector3) {
        let yawPart = yawSway.evaluate(at: now)
        let pitchPart = pitchSway.evaluate(at: now)
        let rollPart = rollSway.evaluate(at: now)
        var yaw = heading + yawPart.value
        var yawRate = yawPart.rate
        var pitch = basePitch + pitchPart.value
        var pitchRate = pitchPart.rate
        var roll = baseRoll + rollPart.value
        var rollRate = rollPart.rate
        var yawAcceleration = 0.0
        var swingRate = 0.0
        var radius = 0.0

        while cursor.swing + 1 < swings.count, swings[cursor.swing + 1].begin <= now { cursor.swing += 1 }
        if cursor.swing < swings.count {
            let swing = swings[cursor.swing]
            let current = swing.evaluate(at: now)
            yaw += settledYaw[cursor.swing] + current.angle
            yawRate += current.rate
            yawAcceleration = current.acceleration
            swingRate = current.rate
            radius = swing.radius
        }
        let waving = Self.active(yawOscillations, &cursor.yaw, at: now)
        yaw += waving.value
        yawRate += waving.rate
        let armSwing = Self.active(pitchOscillations, &cursor.pitch, at: now)
        pitch += armSwing.value
        pitchRate += armSwing.rate
        let twist = Self.active(rollOscillations, &cursor.roll, at: now)
        roll += twist.value
        rollRate += twist.rate

        let attitude = Quaternion(yaw: yaw, pitch: pitch, roll: roll)
        let gravity = attitude.conjugate.rotate(Vector3(x: 0, y: 0, z: -1))
        // As in MotionProfile: with R = Rz(yaw)·Rx(pitch)·Ry(roll) the body rate is yaw' about
        // the vertical (−gravity), pitch' about (cos roll, 0, sin roll) and roll' about ŷ.
        let pitchAxis = Vector3(x: cos(roll), y: 0, z: sin(roll))
        let rotationRate = pitchAxis * pitchRate + Vector3(x: 0, y: rollRate, z: 0) - gravity * yawRate

        var userAcceleration = gravity * -Self.active(bounces, &cursor.bounce, at: now).value
        if radius > 0 {
            // Tangential (r·α) in the swing plane and centripetal (r·ω²) toward the body.
            userAcceleration = userAcceleration + tangentialDirection * (radius * yawAcceleration / standardGravity)
            userAcceleration.x -= radius * swingRate * swingRate / standardGravity
        }
        while cursor.impact + 1 < impacts.count, impacts[cursor.impact + 1].time <= now { cursor.impact += 1 }
        if cursor.impact < impacts.count {
            userAcceleration = userAcceleration + impacts[cursor.impact].acceleration(at: now)
        }
        return (attitude, rotationRate, gravity, userAcceleration)
    }
}
