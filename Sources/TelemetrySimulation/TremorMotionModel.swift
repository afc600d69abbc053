#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif
import TelemetryCore

/// The noise-free acceleration of a ``TremorScenario``'s forearm over time (seconds since the
/// scenario's start, g, device frame, gravity included), and the planning that draws it.
struct TremorMotionModel: Sendable {
    /// A voluntary movement: the forearm turns gravity's direction from `from` to `to` and the
    /// wrist travels by `reach`, both with a minimum-jerk profile.
    struct Movement: Sendable {
        var start: Double
        var duration: Double
        var from: Vector3
        var to: Vector3
        /// Displacement of the wrist, m.
        var reach: Vector3
    }

    /// A sinusoidal oscillation along a direction: tremor, or physiological tremor.
    struct Oscillation: Sendable {
        /// Acceleration amplitude, g.
        var amplitude: Double
        var frequency: Double
        var direction: Vector3
        var phase: Double
        var modulationPhase: Double
    }

    static let standardGravity = 9.80665
    /// Tremor stops this long before a movement and resumes this long after it, s, with ramps of
    /// ``tremorRamp``: resting tremor pauses during voluntary movement and re-emerges after.
    static let tremorPause = (before: 0.2, after: 0.5)
    static let tremorRamp = 0.3

    /// Gravity's direction before the first movement.
    var initialGravity: Vector3
    /// Every movement, in time order.
    var movements: [Movement]
    /// Per minute: the in-band tremor or the out-of-band physiological tremor, if any.
    var oscillations: [Oscillation?]
    /// Two directions across gravity the posture sways along, and their phases.
    var sway: (first: Vector3, second: Vector3, phase: Double)

    // MARK: Signal

    /// Gravity's unit direction at `time`: the movements' rotations plus a sway of about 1°.
    func gravity(at time: Double) -> Vector3 {
        var direction = initialGravity
        for movement in movements where movement.start <= time {
            let progress = (time - movement.start) / movement.duration
            direction = progress >= 1 ? movement.to : Self.slerp(movement.from, movement.to, Self.minimumJerk(progress))
        }
        let swayed =
            direction + sway.first * (0.012 * sin(2 * Double.pi * time / 13 + sway.phase)) + sway.second
            * (0.008 * sin(2 * Double.pi * time / 7 + 2 * sway.phase))
        return swayed.normalized
    }

    /// The acceleration at `time`, g, without noise.
    func acceleration(at time: Double) -> Vector3 {
        var total = gravity(at: time)
        var envelope = 1.0
        for movement in movements {
            let local = time - movement.start
            if local >= 0 && local < movement.duration {
                // Minimum-jerk reach: x(τ) = X(10τ³ − 15τ⁴ + 6τ⁵), so a = X(60τ − 180τ² + 120τ³)/T².
                let tau = local / movement.duration
                let profile = (60 * tau - 180 * tau * tau + 120 * tau * tau * tau) / (movement.duration * movement.duration)
                total = total + movement.reach * (profile / Self.standardGravity)
            }
            envelope = min(envelope, Self.tremorEnvelope(time, movement))
        }
        let minute = Int(time / 60)
        if minute >= 0, minute < oscillations.count, let oscillation = oscillations[minute] {
            let modulation = 1 + 0.1 * sin(2 * Double.pi * 0.15 * time + oscillation.modulationPhase)
            let wave = sin(2 * Double.pi * oscillation.frequency * time + oscillation.phase)
            total = total + oscillation.direction * (-oscillation.amplitude * envelope * modulation * wave)
        }
        return total
    }

    /// The samples from `0` to the last minute's end: the nearest 50 Hz slots after a random
    /// sub-slot phase, without those inside a gap, with Gaussian noise, rounded to 1 µg and 1 µs.
    func samples(
        startDate: Double, bootDate: Double, gaps: [[Range<Double>]], options: TremorScenario.Options, random: inout SplitMix64
    ) -> [RecordedAccelerometerSample] {
        let period = 1 / options.sampleRate
        let phase = (random.nextUnitInterval() * period).milli
        let duration = Double(gaps.count) * 60
        var samples: [RecordedAccelerometerSample] = []
        samples.reserveCapacity(Int(duration * options.sampleRate) + 1)
        var index = 0
        while true {
            let time = phase + Double(index) * period
            index += 1
            guard time < duration else { break }
            let minute = Int(time / 60)
            let second = time - Double(minute) * 60
            if gaps[minute].contains(where: { $0.contains(second) }) { continue }
            let noise = Vector3(
                x: random.nextGaussian(standardDeviation: options.noise), y: random.nextGaussian(standardDeviation: options.noise),
                z: random.nextGaussian(standardDeviation: options.noise))
            let date = (startDate + time).micro
            samples.append(RecordedAccelerometerSample(timestamp: (date - bootDate).micro, startDate: date, acceleration: (acceleration(at: time) + noise).micro))
        }
        return samples
    }

    // MARK: Planning

    /// Draws the minutes' classes, frequencies, movements and gaps.
    static func plan(options: TremorScenario.Options, random: inout SplitMix64) -> (model: TremorMotionModel, truths: [TremorMinuteTruth]) {
        let tremorClasses: [TremorSeverity] = [.slight, .mild, .moderate, .strong]
        let tremorFree = min(max(0, options.tremorFreeMinutes), options.minutes)
        var classes = (0..<(options.minutes - tremorFree)).map { tremorClasses[$0 % tremorClasses.count] }
        classes += [TremorSeverity](repeating: .none, count: tremorFree)
        // Fisher–Yates with the seeded generator (the standard library's shuffle may change).
        for index in classes.indices.reversed() where index > 0 {
            classes.swapAt(index, Int(random.next() % UInt64(index + 1)))
        }

        let initial = Vector3(x: random.nextDouble(in: -0.35...0.35), y: random.nextDouble(in: -0.35...0.35), z: -1).normalized
        let across = initial.cross(Vector3(x: 1, y: 0, z: 0)).normalized
        var model = TremorMotionModel(
            initialGravity: initial, movements: [], oscillations: [],
            sway: (across, initial.cross(across).normalized, random.nextDouble(in: 0...(2 * Double.pi))))
        var truths: [TremorMinuteTruth] = []
        var gravity = initial
        for (minute, severity) in classes.enumerated() {
            let minuteStart = Double(minute) * 60
            var voluntary: [Range<Double>] = []
            for _ in 0..<count(in: options.voluntaryMovementsPerMinute, &random) {
                let duration = random.nextDouble(in: 1...2).milli
                for _ in 0..<20 {
                    let start = random.nextDouble(in: 1...(58 - duration)).milli
                    let span = start..<(start + duration)
                    if voluntary.allSatisfy({ !($0.lowerBound - 3..<$0.upperBound + 3).overlaps(span) }) {
                        voluntary.append(span)
                        break
                    }
                }
            }
            voluntary.sort { $0.lowerBound < $1.lowerBound }
            for span in voluntary {
                let target = turned(gravity, rest: initial, &random)
                let reach = unitVector(&random) * random.nextDouble(in: 0.1...0.35)
                model.movements.append(
                    Movement(start: minuteStart + span.lowerBound, duration: span.upperBound - span.lowerBound, from: gravity, to: target, reach: reach))
                gravity = target
            }
            var gaps: [Range<Double>] = []
            for _ in 0..<count(in: options.gapsPerMinute, &random) {
                let duration = random.nextDouble(in: 1...4).milli
                let start = random.nextDouble(in: 0...(60 - duration)).milli
                gaps.append(start..<(start + duration))
            }
            var truth = TremorMinuteTruth(
                startDate: minuteStart, endDate: minuteStart + 60, severity: severity, frequency: nil, peakToPeak: nil, direction: nil,
                voluntary: voluntary, gaps: gaps)
            if let peakToPeak = TremorScenario.peakToPeak(for: severity) {
                let frequency = random.nextDouble(in: TremorScenario.frequencyRange(for: severity)).milli
                let direction = unitVector(&random)
                let omega = 2 * Double.pi * frequency
                // Displacement amplitude D = p-p / 2 (cm → m); acceleration amplitude D·ω² in g.
                let amplitude = peakToPeak / 200 * omega * omega / standardGravity
                model.oscillations.append(
                    Oscillation(
                        amplitude: amplitude, frequency: frequency, direction: direction, phase: random.nextDouble(in: 0...(2 * Double.pi)),
                        modulationPhase: random.nextDouble(in: 0...(2 * Double.pi))))
                (truth.frequency, truth.peakToPeak, truth.direction) = (frequency, peakToPeak, direction)
            } else if options.physiologicalTremor {
                model.oscillations.append(
                    Oscillation(
                        amplitude: 0.008, frequency: random.nextDouble(in: 8.5...11), direction: unitVector(&random),
                        phase: random.nextDouble(in: 0...(2 * Double.pi)), modulationPhase: random.nextDouble(in: 0...(2 * Double.pi))))
            } else {
                model.oscillations.append(nil)
            }
            truths.append(truth)
        }
        return (model, truths)
    }

    /// A whole number drawn uniformly from `range`.
    private static func count(in range: ClosedRange<Int>, _ random: inout SplitMix64) -> Int {
        range.lowerBound + Int(random.next() % UInt64(range.count))
    }

    /// A uniformly random unit vector.
    private static func unitVector(_ random: inout SplitMix64) -> Vector3 {
        while true {
            let vector = Vector3(x: random.nextGaussian(), y: random.nextGaussian(), z: random.nextGaussian())
            if vector.norm > 1e-6 { return vector.normalized }
        }
    }

    /// Gravity's direction after the forearm turns by 25–60° about an axis across it, staying
    /// within 70° of the resting posture (a forearm on a lap or an armrest).
    private static func turned(_ gravity: Vector3, rest: Vector3, _ random: inout SplitMix64) -> Vector3 {
        var candidate = gravity
        for _ in 0..<50 {
            let axis = gravity.cross(unitVector(&random)).normalized
            guard axis.norm > 0.5 else { continue }
            let angle = random.nextDouble(in: 25...60) * Double.pi / 180
            // Rodrigues' rotation of a vector perpendicular to the axis.
            candidate = gravity * cos(angle) + axis.cross(gravity) * sin(angle)
            if candidate.dot(rest) >= cos(70 * Double.pi / 180) { return candidate.normalized }
        }
        // Nothing fitted (far from rest already): turn back toward rest.
        return slerp(gravity, rest, 0.8)
    }

    // MARK: Profiles

    /// The minimum-jerk position profile 10s³ − 15s⁴ + 6s⁵ on [0, 1].
    static func minimumJerk(_ progress: Double) -> Double {
        let s = max(0, min(1, progress))
        return s * s * s * (10 - 15 * s + 6 * s * s)
    }

    /// Spherical interpolation between unit vectors.
    static func slerp(_ from: Vector3, _ to: Vector3, _ fraction: Double) -> Vector3 {
        let angle = acos(max(-1, min(1, from.dot(to))))
        guard angle > 1e-9 else { return from }
        return (from * sin((1 - fraction) * angle) + to * sin(fraction * angle)) * (1 / sin(angle))
    }

    /// 1 at rest, 0 from just before a movement to a while after it, linear ramps between.
    static func tremorEnvelope(_ time: Double, _ movement: Movement) -> Double {
        let silentFrom = movement.start - tremorPause.before
        let silentTo = movement.start + movement.duration + tremorPause.after
        if time < silentFrom - tremorRamp || time > silentTo + tremorRamp { return 1 }
        if time < silentFrom { return (silentFrom - time) / tremorRamp }
        if time > silentTo { return (time - silentTo) / tremorRamp }
        return 0
    }
}
