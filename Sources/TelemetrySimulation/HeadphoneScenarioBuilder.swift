import TelemetryCore

/// Assembles a ``HeadphoneScenario``: frames with sequence numbers, 25 Hz motion from a head
/// script, and the expectations next to the events that cause them.
struct HeadphoneScenarioBuilder {
    /// Samples per second of `headphone/motion` (AirPods Pro: about 25 Hz).
    static let sampleRate = 25.0
    /// Samples per `headphone/motion` frame (as the fleet simulator).
    static let samplesPerFrame = 5

    let name: String
    let deviceId: String
    let startDate: Double
    let uptimeAtStart: Double
    var script: HeadMotionScript
    private var random: SplitMix64
    private var steps: [HeadphoneScenario.Step] = []
    private var sequences: [String: UInt64] = [:]
    var connections: [HeadphoneScenario.ExpectedConnection] = []
    var handoffs: [HeadphoneScenario.ExpectedHandoff] = []
    var poses: [HeadphoneScenario.ExpectedPose] = []
    var postures: [HeadphoneScenario.ExpectedEvent] = []
    var gestures: [HeadphoneScenario.ExpectedEvent] = []

    init(name: String, deviceId: String, startDate: Double, uptimeAtStart: Double = 52_300, heading: Double) {
        self.name = name
        self.deviceId = deviceId
        self.startDate = startDate
        self.uptimeAtStart = uptimeAtStart
        script = HeadMotionScript(heading: heading)
        random = SplitMix64(seed: SplitMix64.stableHash(name + "/" + deviceId))
    }

    // MARK: Time

    /// Device uptime at scenario time `time`, µs resolution.
    func timestamp(_ time: Double) -> Double { (uptimeAtStart + time).micro }

    /// Wall clock at scenario time `time`, ms resolution.
    func date(_ time: Double) -> Double { (startDate + time).milli }

    /// Scenario time of sample `index` (samples sit on a fixed 1/25 s grid).
    static func sampleTime(_ index: Int) -> Double { Double(index) / sampleRate }

    /// The first sample index at or after `time`.
    static func firstSample(atOrAfter time: Double) -> Int { Int((time * sampleRate - 1e-9).rounded(.up)) }

    /// The timestamp of the first sample at or after `time`.
    func sampleTimestamp(atOrAfter time: Double) -> Double { timestamp(Self.sampleTime(Self.firstSample(atOrAfter: time))) }

    // MARK: Frames

    private mutating func nextSequence(_ stream: String) -> UInt64 {
        let next = sequences[stream, default: 0] + 1
        sequences[stream] = next
        return next
    }

    private func frame(_ stream: String, _ payload: [UInt8], at time: Double, retain: Bool = false) -> SimulatedFrame {
        SimulatedFrame(deviceId: deviceId, stream: stream, payload: payload, retain: retain, qos: .atLeastOnce, time: time)
    }

    mutating func append(_ frame: SimulatedFrame) { steps.append(.frame(frame)) }

    /// `hello` (retained) and `status` online (retained) as the bridge starts.
    mutating func bridgeOnline(at time: Double, hello: Bool = true) {
        if hello {
            let descriptor = SimulatedDevice.airPodsPro2(id: deviceId).descriptor
            append(frame("hello", FrameEncoder.encode(descriptor), at: time, retain: true))
        }
        append(frame("status", FrameEncoder.encode(DeviceStatus(state: .online, date: date(time))), at: time, retain: true))
    }

    /// `status` offline without a date, as the bridge's MQTT will publishes it.
    mutating func bridgeWill(at time: Double) {
        append(frame("status", FrameEncoder.encode(DeviceStatus(state: .offline)), at: time, retain: true))
    }

    /// A `headphone/connection` event dated `dated` (default: `time`), published at `time`.
    mutating func connection(_ kind: HeadphoneConnectionEvent.Kind, at time: Double, dated: Double? = nil) {
        let event = HeadphoneConnectionEvent(kind: kind, date: date(dated ?? time))
        append(frame("headphone/connection", FrameEncoder.encode(event, sequence: nextSequence("headphone/connection")), at: time))
    }

    /// `headphone/motion` frames from `bud` for the samples in [`start`, `end`], following the
    /// head script; each frame is published at its last sample's time.
    mutating func motionFrames(from start: Double, through end: Double, bud: SensorLocation) -> [SimulatedFrame] {
        var frames: [SimulatedFrame] = []
        var samples: [DeviceMotion] = []
        var index = Self.firstSample(atOrAfter: start)
        while Self.sampleTime(index) <= end + 1e-9 {
            let time = Self.sampleTime(index)
            let state = script.state(at: time)
            let noise = Vector3(x: random.nextGaussian() * 0.01, y: random.nextGaussian() * 0.01, z: random.nextGaussian() * 0.01)
            samples.append(
                DeviceMotion(
                    timestamp: timestamp(time), attitude: state.attitude.micro, rotationRate: (state.rotationRate + noise).micro,
                    gravity: state.gravity.micro, userAcceleration: Vector3(x: 0, y: 0, z: 0), sensorLocation: bud))
            if samples.count == Self.samplesPerFrame || Self.sampleTime(index + 1) > end + 1e-9 {
                let payload = FrameEncoder.encode(DeviceMotionBatch(samples: samples, sequence: nextSequence("headphone/motion")))
                frames.append(frame("headphone/motion", payload, at: time))
                samples = []
            }
            index += 1
        }
        return frames
    }

    /// Appends the motion frames of [`start`, `end`] from `bud`.
    mutating func stream(from start: Double, through end: Double, bud: SensorLocation) {
        for frame in motionFrames(from: start, through: end, bud: bud) { append(frame) }
    }

    mutating func silence(_ seconds: Double) { steps.append(.silence(seconds: seconds)) }

    // MARK: Expectations

    mutating func expectConnection(
        _ state: HeadphoneConnectionState, _ reason: HeadphoneConnectionReason, _ location: SensorLocation?, at time: Double? = nil,
        timestamps: ClosedRange<Double>? = nil
    ) {
        connections.append(.init(state: state, reason: reason, sensorLocation: location, date: time.map(date), timestamps: timestamps))
    }

    mutating func expectHandoff(_ from: SensorLocation, _ to: SensorLocation, firstSampleAtOrAfter time: Double) {
        handoffs.append(.init(from: from, to: to, timestamp: sampleTimestamp(atOrAfter: time)))
    }

    /// The head holds `angles` relative to the reference during [`start`, `end`] (scenario time).
    mutating func expectPose(_ angles: HeadAngles, from start: Double, through end: Double) {
        poses.append(.init(timestamps: timestamp(start)...timestamp(end), angles: angles))
    }

    mutating func expectPosture(_ kind: String, from start: Double, through end: Double) {
        postures.append(.init(kind: kind, timestamps: timestamp(start)...timestamp(end)))
    }

    mutating func expectGesture(_ kind: String, from start: Double, through end: Double) {
        gestures.append(.init(kind: kind, timestamps: timestamp(start)...timestamp(end)))
    }

    func build() -> HeadphoneScenario {
        HeadphoneScenario(
            name: name, deviceId: deviceId, startDate: startDate, uptimeAtStart: uptimeAtStart, steps: steps, connections: connections,
            handoffs: handoffs, poses: poses, postures: postures, gestures: gestures)
    }
}
