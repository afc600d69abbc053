import TelemetryCore

/// One device's part of a simulation: its constants, its profiles and, per stream, the next
/// frame, the sequence number and a private random generator.
///
/// Every stream draws only from its own generator and every profile is a function of time, so
/// the frames do not depend on how the caller slices time into steps.
struct DeviceSimulator: Sendable {
    /// Per-stream progress.
    struct StreamState: Sendable {
        let stream: ContractStream
        /// Index of the next frame (0-based) on the stream's schedule.
        var nextFrame = 0
        /// Last sequence number written (0 before the first frame).
        var sequence: UInt64 = 0
        var random: SplitMix64
    }

    /// Cumulative pedometer counters since the workout started.
    struct PedometerProgress: Sendable {
        var steps = 0.0
        var activeSeconds = 0.0
    }

    let device: SimulatedDevice
    /// Position in the generator's device list (orders simultaneous frames).
    let index: Int
    /// Unix epoch seconds at the generator's time 0.
    let startDate: Double
    let environment: DeviceEnvironment
    let motion: MotionProfile
    let dive: DiveProfile?
    /// Surface (air) pressure at the device, kPa.
    let surfacePressure: Double
    private(set) var streams: [StreamState]
    var pedometer = PedometerProgress()
    /// The first altimeter reading, which Core Motion reports as relative altitude 0.
    var altitudeOrigin: Double?

    init(device: SimulatedDevice, index: Int, seed: UInt64, startDate: Double) {
        let deviceSeed = SplitMix64.derivedSeed(seed, salt: SplitMix64.stableHash(device.id))
        var random = SplitMix64(seed: deviceSeed)
        self.device = device
        self.index = index
        self.startDate = startDate
        environment = DeviceEnvironment(device: device, random: &random)
        motion = MotionProfile.make(for: device, random: &random)
        dive = device.supportsSubmersion ? DiveProfile(maximumDepth: device.maximumDepth) : nil
        surfacePressure = DeviceEnvironment.airPressure(atAltitude: environment.baseAltitude)
        streams = device.contractStreams.map { stream in
            StreamState(
                stream: stream,
                random: SplitMix64(seed: SplitMix64.derivedSeed(deviceSeed, salt: SplitMix64.stableHash(stream.path)))
            )
        }
    }

    // MARK: Time

    /// Simulated seconds (generator time) of frame `frame` of `stream`, or `nil` when the
    /// stream has no such frame.
    func time(ofFrame frame: Int, of stream: ContractStream) -> Double? {
        let start = environment.startOffset
        switch stream.schedule {
        case .once:
            return frame == 0 ? start : nil
        case .periodic(let framesPerSecond):
            return start + Double(frame + 1) / framesPerSecond
        case .events:
            return eventTime(ofFrame: frame, of: stream).map { start + $0 }
        }
    }

    /// Seconds after the device's start of event frame `frame`, or `nil` when there is none.
    private func eventTime(ofFrame frame: Int, of stream: ContractStream) -> Double? {
        switch stream {
        case .submersionEvent:
            // 0: the current state when updates start; then submerge, surface, submerge, …
            guard frame > 0 else { return 0 }
            guard let dive else { return nil }
            let cycle = (frame - 1) / 2
            return frame % 2 == 1 ? dive.submergeTime(ofDive: cycle) : dive.surfaceTime(ofDive: cycle)
        default:
            // Pedometer: pause, resume, pause, …
            let cycle = Double(frame / 2) * DeviceEnvironment.pedometerCycle
            return cycle + (frame % 2 == 0 ? DeviceEnvironment.pedometerPauseStart : DeviceEnvironment.pedometerPauseEnd)
        }
    }

    /// Seconds since boot at `elapsed` seconds after the device's start, µs resolution.
    func timestamp(_ elapsed: Double) -> Double {
        (environment.uptimeAtStart + elapsed).micro
    }

    /// Unix epoch seconds at `elapsed` seconds after the device's start, ms resolution.
    func date(_ elapsed: Double) -> Double {
        (startDate + environment.startOffset + elapsed).milli
    }

    // MARK: Frames

    /// Appends every frame due at or before `time` (generator seconds) that was not emitted yet.
    mutating func collectFrames(through time: Double, into pending: inout [PendingFrame]) {
        for position in streams.indices {
            let stream = streams[position].stream
            while let frameTime = self.time(ofFrame: streams[position].nextFrame, of: stream), frameTime <= time {
                let frame = streams[position].nextFrame
                streams[position].nextFrame += 1
                let elapsed = frameTime - environment.startOffset
                guard isPublished(stream, at: elapsed) else { continue }
                let sequence: UInt64? = stream.isNumbered ? streams[position].sequence + 1 : nil
                var random = streams[position].random
                let payload = makePayload(stream, frame: frame, elapsed: elapsed, sequence: sequence, random: &random)
                streams[position].random = random
                if let sequence { streams[position].sequence = sequence }
                pending.append(
                    PendingFrame(
                        time: frameTime,
                        deviceIndex: index,
                        streamOrder: stream.rawValue,
                        frame: SimulatedFrame(
                            deviceId: device.id, stream: stream.path, payload: payload,
                            retain: stream.retain, qos: stream.qos, time: frameTime
                        )
                    )
                )
            }
        }
    }

    /// Water temperature is only reported while submerged.
    private func isPublished(_ stream: ContractStream, at elapsed: Double) -> Bool {
        stream != .submersionTemperature || dive?.depth(at: elapsed) != nil
    }

    private mutating func makePayload(
        _ stream: ContractStream,
        frame: Int,
        elapsed: Double,
        sequence: UInt64?,
        random: inout SplitMix64
    ) -> [UInt8] {
        let date = date(elapsed)
        switch stream {
        case .hello:
            return FrameEncoder.encode(device.descriptor, sequence: sequence)
        case .status:
            return FrameEncoder.encode(DeviceStatus(state: .online, date: date), sequence: sequence)
        case .authorization:
            return FrameEncoder.encode(
                AuthorizationChange(status: device.descriptor.authorization, date: date), sequence: sequence
            )
        case .workout:
            return FrameEncoder.encode(
                WorkoutEvent(state: .running, activityType: device.activity.workoutActivityType, date: date),
                sequence: sequence
            )
        case .headphoneConnection:
            return FrameEncoder.encode(HeadphoneConnectionEvent(kind: .connected, date: date), sequence: sequence)
        case .submersionEvent:
            let state: WaterSubmersionState = frame % 2 == 1 ? .submerged : .notSubmerged
            return FrameEncoder.encode(SubmersionEvent(date: date, state: state), sequence: sequence)
        case .pedometerEvent:
            let type: PedometerEventType = frame % 2 == 0 ? .pause : .resume
            return FrameEncoder.encode(PedometerEvent(date: date, type: type), sequence: sequence)
        case .batchedAccelerometer:
            return FrameEncoder.encode(
                AccelerometerBatch(samples: accelerometerSamples(frame: frame, random: &random), sequence: sequence)
            )
        case .batchedDeviceMotion, .motion, .headphoneMotion:
            return FrameEncoder.encode(
                DeviceMotionBatch(samples: deviceMotionSamples(stream, frame: frame, random: &random), sequence: sequence)
            )
        case .recorderAccelerometer:
            return FrameEncoder.encode(
                RecordedAccelerometerChunk(
                    identifier: UInt64(frame + 1),
                    samples: recordedSamples(frame: frame, random: &random),
                    sequence: sequence
                )
            )
        case .submersionMeasurement:
            return FrameEncoder.encode(submersionMeasurement(elapsed: elapsed, random: &random), sequence: sequence)
        case .submersionTemperature:
            return FrameEncoder.encode(waterTemperature(elapsed: elapsed, random: &random), sequence: sequence)
        case .pedometerData:
            return FrameEncoder.encode(pedometerData(elapsed: elapsed, random: &random), sequence: sequence)
        case .altimeter:
            return FrameEncoder.encode(altitudeSample(elapsed: elapsed, random: &random), sequence: sequence)
        }
    }
}
