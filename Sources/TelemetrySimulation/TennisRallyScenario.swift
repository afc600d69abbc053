public import TelemetryCore

/// A seeded tennis rally on an Apple Watch's per-sample `motion` stream (≤ 100 Hz), with the
/// stroke sequence as ground truth.
///
/// Each stroke turns the wrist about the vertical by 2.4–3.4 rad in 0.35–0.55 s (peak
/// 7–16 rad/s), then the player recovers: a slow partial return and a quiet moment before the
/// next shot, 2.4–3.4 s after the previous one. A forehand turns counter-clockwise seen from
/// above on the right wrist and clockwise on the left; a backhand the other way (SwingWatch's
/// convention). Optional walks between points, footwork bounce, sway, gyro noise and sampling
/// jitter make it realistic; nothing else in it should count as a stroke.
public struct TennisRallyScenario: Sendable {
    /// One stroke the generator made.
    public struct Stroke: Sendable, Equatable {
        /// Forehand or backhand.
        public var kind: TennisStrokeKind
        /// Onset of the stroke's rotation, seconds since boot.
        public var startTimestamp: Double
        /// End of the stroke's forward rotation, seconds since boot.
        public var endTimestamp: Double
    }

    /// The wrist the watch is worn on.
    public let wrist: WristLocation
    /// The strokes, in order.
    public let strokes: [Stroke]
    /// The `motion` frames, in order.
    public let frames: [DeviceMotionBatch]
    /// Session length, s.
    public let duration: Double

    /// Generates a rally.
    /// - Parameters:
    ///   - seed: seeds every random choice.
    ///   - wrist: the wrist the watch is worn on.
    ///   - sequence: the strokes, in order.
    ///   - walkEvery: after this many strokes the player walks 3–5 s (between points); 0: never.
    ///   - sampleRate: `motion` rate, Hz (≤ 100 in the contract).
    ///   - samplesPerFrame: samples per `motion` frame.
    ///   - uptimeAtStart: seconds since boot at session time 0.
    public init(
        seed: UInt64, wrist: WristLocation, sequence: [TennisStrokeKind], walkEvery: Int = 0, sampleRate: Double = 50, samplesPerFrame: Int = 10,
        uptimeAtStart: Double = 52_000
    ) {
        self.wrist = wrist
        var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, salt: SplitMix64.stableHash("tennis-rally")))
        let wristSign: Double = wrist == .right ? -1 : 1
        var model = SwingMotionModel(
            basePitch: -0.2 + random.nextDouble(in: -0.1...0.1),
            baseRoll: 0.3 * wristSign,
            heading: random.nextDouble(in: -Double.pi...Double.pi),
            yawSway: Oscillation(amplitude: 0.04, hertz: random.nextDouble(in: 0.2...0.4), phase: random.nextDouble(in: 0...6.28)),
            pitchSway: Oscillation(amplitude: 0.1, hertz: random.nextDouble(in: 0.1...0.3), phase: random.nextDouble(in: 0...6.28)),
            rollSway: Oscillation(amplitude: 0.1, hertz: random.nextDouble(in: 0.1...0.3), phase: random.nextDouble(in: 0...6.28)),
            tangentialDirection: Vector3(x: 0, y: 1, z: 0)
        )
        var time = 1.5
        var strokes: [Stroke] = []
        for (number, kind) in sequence.enumerated() {
            if walkEvery > 0, number > 0, number % walkEvery == 0 {
                let seconds = random.nextDouble(in: 3...5)
                let envelope = Envelope(begin: time, end: time + seconds, ramp: 0.5)
                let cadence = random.nextDouble(in: 1.7...2.0)
                model.add(
                    yaw: EnvelopedOscillation(envelope: envelope, amplitude: 0.1, hertz: cadence / 2, phase: 1),
                    pitch: EnvelopedOscillation(envelope: envelope, amplitude: 0.4, hertz: cadence / 2, phase: 0),
                    roll: EnvelopedOscillation(envelope: envelope, amplitude: 0.1, hertz: cadence / 2, phase: 2),
                    bounce: EnvelopedOscillation(envelope: envelope, amplitude: 0.15, hertz: cadence, phase: 0))
                time += seconds + 1
            }
            let angle = random.nextDouble(in: 2.4...3.4)
            let rise = random.nextDouble(in: 0.15...0.25)
            let fall = random.nextDouble(in: 0.2...0.3)
            let peak = angle * Double.pi / (2 * (rise + fall))
            // Right wrist: a forehand turns counter-clockwise from above, i.e. yaw increases.
            let yawDirection: Double = (kind == .forehand) == (wrist == .right) ? 1 : -1
            let shape = SwingShape(
                onset: time, loadDuration: 0.2, loadRate: random.nextDouble(in: 0...0.3), timeToContact: rise, peakRate: peak, followThrough: fall,
                followFactor: 1, hold: 0.2, returnDuration: random.nextDouble(in: 1.0...1.4), returnFraction: random.nextDouble(in: 0.15...0.3),
                direction: yawDirection, radius: 0.5,
                impact: ImpactShape(time: time + rise, amplitude: random.nextDouble(in: 3...8), frequency: 150, decay: 0.006, sign: 1))
            model.add(shape)
            strokes.append(Stroke(kind: kind, startTimestamp: uptimeAtStart + time, endTimestamp: uptimeAtStart + time + rise + fall))
            time = shape.end + random.nextDouble(in: 0.6...1.0)
        }
        duration = time + 1.5
        self.strokes = strokes

        var noise = SplitMix64(seed: SplitMix64.derivedSeed(seed, salt: SplitMix64.stableHash("tennis-noise")))
        var cursor = SwingMotionModel.Cursor()
        var frames: [DeviceMotionBatch] = []
        var samples: [DeviceMotion] = []
        let count = Int(duration * sampleRate)
        for k in 0..<count {
            let jitter = min(0.0002, max(-0.0002, noise.nextGaussian() * 0.00005))
            let now = Double(k) / sampleRate + jitter
            let state = model.state(at: now, cursor: &cursor)
            let rateNoise = Vector3(x: noise.nextGaussian() * 0.02, y: noise.nextGaussian() * 0.02, z: noise.nextGaussian() * 0.02)
            let accelerationNoise = Vector3(x: noise.nextGaussian() * 0.01, y: noise.nextGaussian() * 0.01, z: noise.nextGaussian() * 0.01)
            samples.append(
                DeviceMotion(
                    timestamp: (uptimeAtStart + now).micro, attitude: state.attitude.micro, rotationRate: (state.rotationRate + rateNoise).micro,
                    gravity: state.gravity.micro, userAcceleration: (state.userAcceleration + accelerationNoise).micro))
            if samples.count == samplesPerFrame {
                frames.append(DeviceMotionBatch(samples: samples, sequence: UInt64(frames.count + 1)))
                samples.removeAll(keepingCapacity: true)
            }
        }
        if !samples.isEmpty { frames.append(DeviceMotionBatch(samples: samples, sequence: UInt64(frames.count + 1))) }
        self.frames = frames
    }
}
