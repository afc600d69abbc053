import MQTTVocabulary

#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif
public import TelemetryCore

/// One scripted dive of an Apple Watch Ultra, with its ground truth: the frames a device
/// publishes (`hello`, `submersion/event`, `submersion/measurement`, `submersion/temperature`)
/// and what the gateway must derive from them.
///
/// The device starts at the surface (`notSubmerged` event, then surface-only measurements at
/// 1 Hz), submerges at ``surfaceBefore`` seconds, follows ``legs`` (straight lines in depth over
/// time, from 0 m) with uniform noise of ±``noise`` m, and surfaces when the last leg ends
/// (`notSubmerged` event, surface measurements for ``surfaceAfter`` seconds). While submerged it
/// sends measurements and temperature readings at 3 Hz. Like Core Motion, the device's own
/// `submersionState` follows the contract's bands without hysteresis, and in
/// `sensorDepthError` the measurement carries neither depth nor pressure.
///
/// The expected depth states (``expectedDepthStates(hysteresis:waterDensity:)``) are computed
/// from the generated frames by this file's own reading of the wire contract's rule, not by the
/// gateway's state machine. The presets (``snorkel``, ``approachingMaxDepth``, …) also state
/// their intended sequence (``nominalDepthStates``) and the ascent-rate and safety-stop outcomes.
///
/// Pure and seeded: the same scenario always gives the same frames.
public struct DiveScenario: Sendable, Equatable {
    /// A straight line in depth over time.
    public struct Leg: Sendable, Equatable {
        /// The depth at the end of the leg, m.
        public var depth: Double
        /// How long the leg takes, s.
        public var duration: Double

        /// Creates a leg.
        /// - Parameters:
        ///   - depth: m at the end.
        ///   - duration: s.
        public init(to depth: Double, over duration: Double) {
            self.depth = depth
            self.duration = duration
        }

        /// A leg at a vertical speed.
        /// - Parameters:
        ///   - depth: m at the end.
        ///   - start: m at the start.
        ///   - metresPerMinute: speed, m/min (> 0).
        public static func move(to depth: Double, from start: Double, metresPerMinute: Double) -> Leg {
            Leg(to: depth, over: abs(depth - start) / metresPerMinute * 60)
        }
    }

    /// Which of depth and pressure the submerged measurements carry.
    public enum DepthReporting: String, Sendable, Equatable, CaseIterable {
        /// Both, as Core Motion does.
        case depthAndPressure
        /// Pressure only: the gateway computes the depth.
        case pressureOnly
        /// Alternately both and pressure only.
        case alternating
    }

    /// One thing the device sends, at a time in seconds since the scenario starts.
    public enum Observation: Sendable, Equatable {
        /// `submersion/event`.
        case event(SubmersionEvent)
        /// `submersion/measurement`.
        case measurement(SubmersionMeasurement)
        /// `submersion/temperature`.
        case temperature(WaterTemperature)
    }

    /// A short name, e.g. `approaching-5.8m`.
    public var name: String
    /// The device id used in topics.
    public var deviceId: String
    /// The entitlement's maximum depth M the device has (6 shallow, 40 full), m.
    public var maximumDepth: Double
    /// The profile below the surface, from 0 m; the device surfaces when the last leg ends.
    public var legs: [Leg]
    /// Half-width of the uniform depth noise, m.
    public var noise: Double
    /// Depth and/or pressure in submerged measurements.
    public var reporting: DepthReporting
    /// Seeds the noise.
    public var seed: UInt64
    /// Seconds at the surface before submerging.
    public var surfaceBefore = 5.0
    /// Seconds at the surface after surfacing.
    public var surfaceAfter = 5.0
    /// Surface (air) pressure, kPa.
    public var surfacePressure = 101.325
    /// Water density used to write pressures, kg/m³ (sea water).
    public var waterDensity = 1025.0
    /// Water temperature at the surface, °C (colder by 0.25 °C per m).
    public var surfaceTemperature = 24.0
    /// The depth-state sequence the preset is designed to produce (nil for random scenarios).
    public var nominalDepthStates: [DepthState]?
    /// How many ascent-rate warnings the design produces with the default rule (nil: not stated).
    public var expectedAscentWarnings: Int?
    /// Whether the design surfaces without a needed safety stop, with the default rule (nil: not stated).
    public var expectsSafetyStopHint: Bool?

    /// Creates a scenario.
    /// - Parameters:
    ///   - name: a short name.
    ///   - deviceId: the device id used in topics.
    ///   - maximumDepth: the entitlement's maximum depth M, m (6 or 40).
    ///   - legs: the profile below the surface, from 0 m.
    ///   - noise: half-width of the uniform depth noise, m; default 0.02.
    ///   - reporting: depth and/or pressure in submerged measurements.
    ///   - seed: seeds the noise.
    ///   - nominalDepthStates: the intended state sequence, if stated.
    ///   - expectedAscentWarnings: the intended number of ascent warnings, if stated.
    ///   - expectsSafetyStopHint: whether a safety-stop hint is intended, if stated.
    public init(
        name: String, deviceId: String, maximumDepth: Double, legs: [Leg], noise: Double = 0.02, reporting: DepthReporting = .depthAndPressure,
        seed: UInt64 = 1, nominalDepthStates: [DepthState]? = nil, expectedAscentWarnings: Int? = nil, expectsSafetyStopHint: Bool? = nil
    ) {
        self.name = name
        self.deviceId = deviceId
        self.maximumDepth = maximumDepth
        self.legs = legs
        self.noise = noise
        self.reporting = reporting
        self.seed = seed
        self.nominalDepthStates = nominalDepthStates
        self.expectedAscentWarnings = expectedAscentWarnings
        self.expectsSafetyStopHint = expectsSafetyStopHint
    }

    /// Seconds from submerging to surfacing.
    public var diveDuration: Double { legs.reduce(0) { $0 + $1.duration } }
    /// Seconds since the start when the device submerges.
    public var submergeTime: Double { surfaceBefore }
    /// Seconds since the start when the device surfaces.
    public var surfaceTime: Double { surfaceBefore + diveDuration }
    /// The deepest point of the profile, without noise, m.
    public var profileMaxDepth: Double { legs.map(\.depth).max() ?? 0 }

    /// The profile's depth `elapsed` seconds after submerging, without noise, m.
    public func profileDepth(at elapsed: Double) -> Double {
        var start = 0.0
        var time = 0.0
        for leg in legs {
            if elapsed <= time + leg.duration {
                let fraction = leg.duration > 0 ? (elapsed - time) / leg.duration : 1
                return start + (leg.depth - start) * max(0, min(1, fraction))
            }
            time += leg.duration
            start = leg.depth
        }
        return start
    }

    /// Everything the device sends after its `hello`, in time order (seconds since the start).
    public func observations() -> [(time: Double, observation: Observation)] {
        var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, salt: SplitMix64.stableHash(deviceId)))
        let surface = surfacePressure.milli
        var result: [(time: Double, observation: Observation)] = []
        func surfaceMeasurement(_ time: Double) -> Observation {
            .measurement(SubmersionMeasurement(date: time, depth: nil, pressure: nil, surfacePressure: surface, submersionState: .notSubmerged))
        }
        result.append((0, .event(SubmersionEvent(date: 0, state: .notSubmerged))))
        var time = 0.5
        while time < submergeTime {
            result.append((time, surfaceMeasurement(time)))
            time += 1
        }
        result.append((submergeTime, .event(SubmersionEvent(date: submergeTime, state: .submerged))))
        var index = 1
        while true {
            let elapsed = Double(index) / 3
            let sampleTime = submergeTime + elapsed
            guard sampleTime < surfaceTime else { break }
            let depth = max(0, profileDepth(at: elapsed) + random.nextDouble(in: -noise...noise)).milli
            let state = Self.deviceState(forDepth: depth, maximumDepth: maximumDepth)
            var measurement = SubmersionMeasurement(date: sampleTime, depth: nil, pressure: nil, surfacePressure: surface, submersionState: state)
            if state != .sensorDepthError {
                let pressureOnly = reporting == .pressureOnly || (reporting == .alternating && index % 2 == 0)
                measurement.pressure = (surface + waterDensity * 9.80665 * depth / 1000).milli
                if !pressureOnly { measurement.depth = depth }
            }
            result.append((sampleTime, .measurement(measurement)))
            let settling = exp(-elapsed / 15)
            let reading = WaterTemperature(
                date: sampleTime, temperature: (surfaceTemperature - 0.25 * depth + 2.5 * settling).milli,
                temperatureUncertainty: (0.2 + 1.5 * settling).milli)
            result.append((sampleTime, .temperature(reading)))
            index += 1
        }
        result.append((surfaceTime, .event(SubmersionEvent(date: surfaceTime, state: .notSubmerged))))
        time = surfaceTime + 0.5
        while time < surfaceTime + surfaceAfter {
            result.append((time, surfaceMeasurement(time)))
            time += 1
        }
        return result
    }

    /// The frames to publish: the retained `hello` of an Apple Watch Ultra 2, then every
    /// observation with its date moved to `startDate` + time (ms resolution) and a per-stream
    /// `sequence`.
    /// - Parameter startDate: Unix epoch seconds at the scenario's start.
    /// - Returns: frames in publishing order.
    public func frames(startDate: Double) -> [SimulatedFrame] {
        let device = SimulatedDevice.appleWatchUltra2(id: deviceId)
        var frames = [
            SimulatedFrame(deviceId: deviceId, stream: "hello", payload: FrameEncoder.encode(device.descriptor), retain: true, qos: .atLeastOnce, time: 0)
        ]
        var sequences: [String: UInt64] = [:]
        for (time, observation) in dated(observations(), startDate: startDate) {
            let stream: String
            let payload: (UInt64) -> [UInt8]
            switch observation {
            case .event(let event):
                stream = InboundStream.submersionEvent.rawValue
                payload = { FrameEncoder.encode(event, sequence: $0) }
            case .measurement(let measurement):
                stream = InboundStream.submersionMeasurement.rawValue
                payload = { FrameEncoder.encode(measurement, sequence: $0) }
            case .temperature(let reading):
                stream = InboundStream.submersionTemperature.rawValue
                payload = { FrameEncoder.encode(reading, sequence: $0) }
            }
            let sequence = sequences[stream, default: 0] + 1
            sequences[stream] = sequence
            frames.append(SimulatedFrame(deviceId: deviceId, stream: stream, payload: payload(sequence), retain: false, qos: .atLeastOnce, time: time))
        }
        return frames
    }

    /// The observations with their dates moved to `startDate` + time, ms resolution.
    /// - Parameter startDate: Unix epoch seconds at the scenario's start.
    public func observations(startDate: Double) -> [(time: Double, observation: Observation)] {
        dated(observations(), startDate: startDate)
    }

    private func dated(_ list: [(time: Double, observation: Observation)], startDate: Double) -> [(time: Double, observation: Observation)] {
        list.map { time, observation in
            let date = (startDate + time).milli
            switch observation {
            case .event(var event):
                event.date = date
                return (time, .event(event))
            case .measurement(var measurement):
                measurement.date = date
                return (time, .measurement(measurement))
            case .temperature(var reading):
                reading.date = date
                return (time, .temperature(reading))
            }
        }
    }

    /// The deepest depth the measurements report (given or from pressure), m.
    public func reportedMaxDepth() -> Double {
        var deepest = 0.0
        for (_, observation) in observations() {
            guard case .measurement(let measurement) = observation, let depth = resolvedDepth(measurement) else { continue }
            deepest = max(deepest, depth)
        }
        return deepest
    }

    /// The depth a reader of the contract takes from a measurement: `depth`, else from pressure.
    func resolvedDepth(_ measurement: SubmersionMeasurement, waterDensity density: Double = 1025) -> Double? {
        if let depth = measurement.depth { return depth }
        guard let pressure = measurement.pressure else { return nil }
        return (pressure - measurement.surfacePressure) * 1000 / (density * 9.80665)
    }
}
