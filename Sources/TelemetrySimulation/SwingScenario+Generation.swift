import TelemetryCore

/// When each batch of the two batched streams begins: one batch a second from a random phase,
/// each boundary jittered independently per stream (a pure function of the seed and index).
struct BatchSchedule: Sendable {
    let seed: UInt64
    let jitter: Double
    let phase: Double

    init(seed: UInt64, jitter: Double) {
        self.seed = seed
        self.jitter = jitter
        var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, salt: SplitMix64.stableHash("batch-phase")))
        phase = random.nextDouble(in: 0.3...0.7)
    }

    /// Session time at which batch `index` (≥ 1) of `stream` begins; batch 0 begins at −∞.
    func boundary(_ index: Int, _ stream: SwingScenario.Stream) -> Double {
        guard index > 0 else { return -.infinity }
        let salt = UInt64(index) &* 2 &+ (stream == .accelerometer ? 0 : 1)
        var random = SplitMix64(seed: SplitMix64.derivedSeed(seed ^ 0x5EED_BA7C, salt: salt))
        let offset = stream == .accelerometer ? 0 : 0.004
        return phase + Double(index - 1) + offset + random.nextDouble(in: -1...1) * jitter
    }

    /// The batch of `stream` that contains session time `time`.
    func batch(containing time: Double, _ stream: SwingScenario.Stream) -> Int {
        var index = max(0, Int((time - phase).rounded(.down)) + 1)
        while index > 0, boundary(index, stream) > time { index -= 1 }
        while boundary(index + 1, stream) <= time { index += 1 }
        return index
    }

    /// Whether a boundary of either stream lies in `(from, to)`.
    func hasBoundary(between from: Double, and to: Double) -> Bool {
        for stream in [SwingScenario.Stream.accelerometer, .deviceMotion] where batch(containing: from, stream) != batch(containing: to, stream) {
            return true
        }
        return false
    }
}

/// Lays actions end to end: the motion model plus the ground truth of each swing.
struct SwingTimeline: Sendable {
    var random: SplitMix64
    let schedule: BatchSchedule
    var model: SwingMotionModel
    /// Session time where the next action begins.
    var time = 0.5
    var records: [SwingGroundTruth] = []
    /// Time covered by swings that should be published (with margins).
    var swingSeconds = 0.0

    init(random: SplitMix64, schedule: BatchSchedule) {
        var random = random
        self.schedule = schedule
        let wristSign: Double = random.nextUnitInterval() < 0.5 ? -1 : 1
        let zShare = random.nextDouble(in: -0.1...0.1)
        model = SwingMotionModel(
            basePitch: random.nextDouble(in: -0.3...0.1),
            baseRoll: 0.2 * wristSign + random.nextDouble(in: -0.1...0.1),
            heading: random.nextDouble(in: -Double.pi...Double.pi),
            yawSway: Oscillation(
                amplitude: random.nextDouble(in: 0.02...0.04), hertz: random.nextDouble(in: 0.2...0.5), phase: random.nextDouble(in: 0...6.28)),
            pitchSway: Oscillation(amplitude: 0.05, hertz: random.nextDouble(in: 0.1...0.3), phase: random.nextDouble(in: 0...6.28)),
            rollSway: Oscillation(amplitude: 0.05, hertz: random.nextDouble(in: 0.1...0.3), phase: random.nextDouble(in: 0...6.28)),
            tangentialDirection: Vector3(x: 0, y: (1 - zShare * zShare).squareRoot(), z: zShare)
        )
        self.random = random
    }

    mutating func add(_ action: SwingScenario.Action) {
        switch action {
        case .idle(let seconds):
            time += seconds
        case .walking(let seconds):
            addWalking(seconds)
        case .waving(let seconds):
            let envelope = Envelope(begin: time, end: time + seconds, ramp: 0.3)
            model.add(
                yaw: EnvelopedOscillation(
                    envelope: envelope, amplitude: random.nextDouble(in: 0.25...0.45), hertz: random.nextDouble(in: 1.5...2.2),
                    phase: random.nextDouble(in: 0...6.28)))
            time += seconds
        case .bump:
            model.add(
                ImpactShape(
                    time: time + random.nextDouble(in: 0.3...0.7), amplitude: random.nextDouble(in: 2...8),
                    frequency: random.nextDouble(in: 80...200),
                    decay: random.nextDouble(in: 0.003...0.008), sign: random.nextUnitInterval() < 0.5 ? -1 : 1))
            time += 1
        case .practiceSwing:
            addSwing(kind: .practice, placement: .anywhere)
        case .swing(let contact, let placement):
            addSwing(kind: contact ? .contact : .miss, placement: placement)
        }
    }

    private mutating func addWalking(_ seconds: Double) {
        let envelope = Envelope(begin: time, end: time + seconds, ramp: 0.5)
        let cadence = random.nextDouble(in: 1.7...2.0)  // steps per second
        let phase = random.nextDouble(in: 0...6.28)
        model.add(
            yaw: EnvelopedOscillation(envelope: envelope, amplitude: random.nextDouble(in: 0.05...0.12), hertz: cadence / 2, phase: phase + 1),
            pitch: EnvelopedOscillation(envelope: envelope, amplitude: random.nextDouble(in: 0.35...0.5), hertz: cadence / 2, phase: phase),
            roll: EnvelopedOscillation(envelope: envelope, amplitude: 0.1, hertz: cadence / 2, phase: phase + 2),
            bounce: EnvelopedOscillation(envelope: envelope, amplitude: random.nextDouble(in: 0.12...0.18), hertz: cadence, phase: phase))
        var step = time + 0.5
        while step < time + seconds - 0.5 {
            // Heel strikes reach the wrist as small, low-frequency jolts.
            model.add(
                ImpactShape(
                    time: step, amplitude: random.nextDouble(in: 0.2...0.4), frequency: random.nextDouble(in: 35...50), decay: 0.012, sign: -1))
            step += 1 / cadence
        }
        time += seconds
    }

    private mutating func addSwing(kind: SwingGroundTruth.Kind, placement: SwingScenario.Placement) {
        let stance = random.nextDouble(in: 0.6...1.2)
        let loadDuration = random.nextDouble(in: 0.2...0.35)
        let loadRate = random.nextDouble(in: 0...0.6)
        let timeToContact: Double
        let peakRate: Double
        let followThrough: Double
        if kind == .practice {
            timeToContact = random.nextDouble(in: 0.25...0.45)
            peakRate = random.nextDouble(in: 2.5...6)
            followThrough = random.nextDouble(in: 0.2...0.35)
        } else {
            timeToContact = random.nextDouble(in: 0.12...0.25)
            let angle = random.nextDouble(in: 1.5...2.6)
            peakRate = angle * Double.pi / (2 * timeToContact)
            followThrough = random.nextDouble(in: 0.15...0.3)
        }
        let yawDirection: Double = random.nextUnitInterval() < 0.5 ? -1 : 1
        let impactAmplitude = random.nextDouble(in: 4...16)
        let impactFrequency = random.nextDouble(in: 90...220)
        let impactDecay = random.nextDouble(in: 0.004...0.012)
        let impactSign: Double = random.nextUnitInterval() < 0.5 ? -1 : 1
        let hold = 0.2
        let returnDuration = random.nextDouble(in: 1.2...1.6)

        var onset = time + stance + loadDuration
        switch placement {
        case .anywhere:
            break
        case .acrossBatchBoundary:
            let share = random.nextDouble(in: 0.3...0.7)
            var index = schedule.batch(containing: onset, .accelerometer) + 1
            while schedule.boundary(index, .accelerometer) - share * timeToContact < onset { index += 1 }
            onset = schedule.boundary(index, .accelerometer) - share * timeToContact
        case .insideBatch:
            let margin = 0.08
            var index = schedule.batch(containing: onset, .accelerometer)
            while true {
                let begin = max(onset, max(schedule.boundary(index, .accelerometer), schedule.boundary(index, .deviceMotion)) + margin + loadDuration)
                let end = min(schedule.boundary(index + 1, .accelerometer), schedule.boundary(index + 1, .deviceMotion)) - margin
                if begin + timeToContact <= end {
                    onset = begin
                    break
                }
                index += 1
            }
        }
        let radius = min(0.4, 40 * standardGravity / (peakRate * peakRate))
        var impact: ImpactShape?
        if kind == .contact {
            impact = ImpactShape(
                time: onset + timeToContact, amplitude: impactAmplitude, frequency: impactFrequency, decay: impactDecay, sign: impactSign)
        }
        let shape = SwingShape(
            onset: onset, loadDuration: loadDuration, loadRate: loadRate, timeToContact: timeToContact, peakRate: peakRate,
            followThrough: followThrough, followFactor: kind == .contact ? 0.85 : 1, hold: hold, returnDuration: returnDuration,
            returnFraction: 0.6, direction: yawDirection, radius: radius, impact: impact)
        model.add(shape)
        records.append(
            SwingGroundTruth(
                kind: kind, startTimestamp: onset, impactTimestamp: kind == .contact ? onset + timeToContact : nil, peakRotationRate: peakRate,
                angleToContact: shape.angleToContact, direction: -yawDirection,
                crossesBatchBoundary: schedule.hasBoundary(between: onset, and: onset + timeToContact)))
        if kind != .practice { swingSeconds += loadDuration + timeToContact + followThrough + 0.5 }
        time = shape.end + 0.2
    }
}

/// Samples the model into batches and decides their arrival order.
struct BatchSampler: Sendable {
    let model: SwingMotionModel
    let uptime: Double
    let duration: Double
    let schedule: BatchSchedule
    let options: SwingScenario.Options
    let seed: UInt64

    private func generator(_ name: String) -> SplitMix64 {
        SplitMix64(seed: SplitMix64.derivedSeed(seed, salt: SplitMix64.stableHash(name)))
    }

    private func jitter(_ random: inout SplitMix64) -> Double {
        let sigma = options.timestampJitter
        return min(3 * sigma, max(-3 * sigma, random.nextGaussian() * sigma))
    }

    private func noise(_ random: inout SplitMix64, _ sigma: Double) -> Vector3 {
        Vector3(x: random.nextGaussian() * sigma, y: random.nextGaussian() * sigma, z: random.nextGaussian() * sigma)
    }

    /// 800 Hz accelerometer batches: (index, session end of the batch, batch).
    func accelerometerBatches() -> [(index: Int, end: Double, batch: AccelerometerBatch)] {
        var random = generator("swing-accelerometer")
        var cursor = SwingMotionModel.Cursor()
        var batches: [(index: Int, end: Double, batch: AccelerometerBatch)] = []
        var samples: [AccelerometerSample] = []
        var index = 0
        var nextBoundary = schedule.boundary(1, .accelerometer)
        let count = Int(duration * 800)
        for k in 0..<count {
            let time = Double(k) / 800 + jitter(&random)
            while time >= nextBoundary {
                if !samples.isEmpty { batches.append((index, nextBoundary, AccelerometerBatch(samples: samples, sequence: UInt64(index + 1)))) }
                samples.removeAll(keepingCapacity: true)
                index += 1
                nextBoundary = schedule.boundary(index + 1, .accelerometer)
            }
            let state = model.state(at: time, cursor: &cursor)
            let acceleration = state.gravity + state.userAcceleration + noise(&random, options.accelerometerNoise)
            samples.append(AccelerometerSample(timestamp: (uptime + time).micro, acceleration: acceleration.micro))
        }
        if !samples.isEmpty { batches.append((index, duration, AccelerometerBatch(samples: samples, sequence: UInt64(index + 1)))) }
        return batches
    }

    /// 200 Hz device-motion batches: (index, session end of the batch, batch).
    func deviceMotionBatches() -> [(index: Int, end: Double, batch: DeviceMotionBatch)] {
        var random = generator("swing-device-motion")
        var cursor = SwingMotionModel.Cursor()
        var batches: [(index: Int, end: Double, batch: DeviceMotionBatch)] = []
        var samples: [DeviceMotion] = []
        var index = 0
        var nextBoundary = schedule.boundary(1, .deviceMotion)
        let count = Int(duration * 200)
        for k in 0..<count {
            let time = 0.0031 + Double(k) / 200 + jitter(&random)
            while time >= nextBoundary {
                if !samples.isEmpty { batches.append((index, nextBoundary, DeviceMotionBatch(samples: samples, sequence: UInt64(index + 1)))) }
                samples.removeAll(keepingCapacity: true)
                index += 1
                nextBoundary = schedule.boundary(index + 1, .deviceMotion)
            }
            let state = model.state(at: time, cursor: &cursor)
            samples.append(
                DeviceMotion(
                    timestamp: (uptime + time).micro,
                    attitude: state.attitude.micro,
                    rotationRate: (state.rotationRate + noise(&random, options.rotationRateNoise)).micro,
                    gravity: (state.gravity + noise(&random, 0.002)).micro,
                    userAcceleration: (state.userAcceleration + noise(&random, options.accelerometerNoise)).micro
                ))
        }
        if !samples.isEmpty { batches.append((index, duration, DeviceMotionBatch(samples: samples, sequence: UInt64(index + 1)))) }
        return batches
    }

    /// Both streams merged by arrival time (each stream stays in order); dropped batches left out.
    func arrivalOrder(
        accelerometer: [(index: Int, end: Double, batch: AccelerometerBatch)],
        deviceMotion: [(index: Int, end: Double, batch: DeviceMotionBatch)]
    ) -> [SwingScenario.Batch] {
        var random = generator("swing-arrival")
        func arrivals(_ ends: [(Int, Double)], _ stream: SwingScenario.Stream) -> [(time: Double, stream: SwingScenario.Stream, position: Int)] {
            var previous = -Double.infinity
            var result: [(time: Double, stream: SwingScenario.Stream, position: Int)] = []
            for (position, (index, end)) in ends.enumerated() {
                var time = end + random.nextDouble(in: options.latency)
                if random.nextUnitInterval() < options.lateBatchProbability { time += random.nextDouble(in: 1.0...1.3) }
                time = max(time, previous + 0.001)
                previous = time
                if !options.droppedBatches.contains(SwingScenario.BatchID(stream, index)) { result.append((time, stream, position)) }
            }
            return result
        }
        let accelerometerArrivals = arrivals(accelerometer.map { ($0.index, $0.end) }, .accelerometer)
        let merged = (accelerometerArrivals + arrivals(deviceMotion.map { ($0.index, $0.end) }, .deviceMotion))
            .sorted { $0.time < $1.time || ($0.time == $1.time && $0.stream == .accelerometer && $1.stream == .deviceMotion) }
        return merged.map { entry in
            switch entry.stream {
            case .accelerometer: .accelerometer(accelerometer[entry.position].batch)
            case .deviceMotion: .deviceMotion(deviceMotion[entry.position].batch)
            }
        }
    }
}
