#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif
import TelemetryCore

/// Earth's field in a north-referenced frame (X north, Z up), µT: 20 north, 42 down.
private let earthMagneticField = Vector3(x: 20, y: 0, z: -42)

extension DeviceSimulator {
    /// Seconds after start of the samples of frame `frame` of a sample-array stream.
    private func sampleTimes(_ stream: ContractStream, frame: Int) -> (times: StrideTo<Int>, rate: Double) {
        let (rate, perFrame) = stream.sampling ?? (1, 1)
        return (stride(from: frame * perFrame, to: (frame + 1) * perFrame, by: 1), rate)
    }

    private func noise(_ random: inout SplitMix64, _ standardDeviation: Double) -> Vector3 {
        Vector3(
            x: random.nextGaussian() * standardDeviation,
            y: random.nextGaussian() * standardDeviation,
            z: random.nextGaussian() * standardDeviation
        )
    }

    /// 800 Hz raw accelerometer (gravity + user acceleration + 0.008 g noise).
    func accelerometerSamples(frame: Int, random: inout SplitMix64) -> [AccelerometerSample] {
        let (indices, rate) = sampleTimes(.batchedAccelerometer, frame: frame)
        var samples: [AccelerometerSample] = []
        samples.reserveCapacity(indices.underestimatedCount)
        for sampleIndex in indices {
            let elapsed = Double(sampleIndex) / rate
            let state = motion.state(at: elapsed)
            let acceleration = state.gravity + state.userAcceleration + noise(&random, 0.008)
            samples.append(AccelerometerSample(timestamp: timestamp(elapsed), acceleration: acceleration.micro))
        }
        return samples
    }

    /// 50 Hz recorded accelerometer with wall-clock `startDate`s.
    func recordedSamples(frame: Int, random: inout SplitMix64) -> [RecordedAccelerometerSample] {
        let (indices, rate) = sampleTimes(.recorderAccelerometer, frame: frame)
        var samples: [RecordedAccelerometerSample] = []
        samples.reserveCapacity(indices.underestimatedCount)
        for sampleIndex in indices {
            let elapsed = Double(sampleIndex) / rate
            let state = motion.state(at: elapsed)
            let acceleration = state.gravity + state.userAcceleration + noise(&random, 0.01)
            samples.append(
                RecordedAccelerometerSample(
                    timestamp: timestamp(elapsed), startDate: date(elapsed), acceleration: acceleration.micro
                )
            )
        }
        return samples
    }

    /// Device motion for `batched/device-motion` (200 Hz), `motion` (50 Hz, with magnetometer
    /// and heading in a magnetic-north frame) or `headphone/motion` (25 Hz, one bud at a time,
    /// handing over every 60 s).
    func deviceMotionSamples(_ stream: ContractStream, frame: Int, random: inout SplitMix64) -> [DeviceMotion] {
        let (indices, rate) = sampleTimes(stream, frame: frame)
        let isHeadphone = stream == .headphoneMotion
        let reportsMagnetometer = stream == .motion
        let rateNoise = isHeadphone ? 0.01 : 0.004
        let accelerationNoise = isHeadphone ? 0.005 : 0.004
        var samples: [DeviceMotion] = []
        samples.reserveCapacity(indices.underestimatedCount)
        for sampleIndex in indices {
            let elapsed = Double(sampleIndex) / rate
            let state = motion.state(at: elapsed)
            var sample = DeviceMotion(
                timestamp: timestamp(elapsed),
                attitude: state.attitude.micro,
                rotationRate: (state.rotationRate + noise(&random, rateNoise)).micro,
                gravity: state.gravity.micro,
                userAcceleration: (state.userAcceleration + noise(&random, accelerationNoise)).micro
            )
            if isHeadphone {
                let handOver = Int((elapsed / 60).rounded(.down)) % 2 == 1
                sample.sensorLocation = handOver ? .headphoneRight : .headphoneLeft
            }
            if reportsMagnetometer {
                let field = state.attitude.conjugate.rotate(earthMagneticField) + noise(&random, 0.3)
                sample.magneticField = MagneticField(field: field.micro, accuracy: .high)
                // Compass heading of the device's top edge: 270° − yaw in a frame with X north, Y west.
                var heading = (270 - state.yaw * 180 / Double.pi).truncatingRemainder(dividingBy: 360)
                if heading < 0 { heading += 360 }
                heading = heading.milli
                sample.heading = heading >= 360 ? 0 : heading
            }
            samples.append(sample)
        }
        return samples
    }

    /// 3 Hz depth and pressure; at the surface and beyond the sensor's range only surface
    /// pressure and the state, as Core Motion does.
    func submersionMeasurement(elapsed: Double, random: inout SplitMix64) -> SubmersionMeasurement {
        let measuredSurfacePressure = (surfacePressure + random.nextGaussian() * 0.005).milli
        let trueDepth = dive?.depth(at: elapsed)
        let measuredDepth = trueDepth.map { max(0, $0 + random.nextGaussian() * 0.02) }
        let state = dive?.depthState(forDepth: measuredDepth) ?? .notSubmerged
        guard let measuredDepth, state != .sensorDepthError else {
            return SubmersionMeasurement(
                date: date(elapsed), depth: nil, pressure: nil, surfacePressure: measuredSurfacePressure,
                submersionState: state
            )
        }
        let pressure = DeviceEnvironment.waterPressure(atDepth: measuredDepth, surfacePressure: surfacePressure)
        return SubmersionMeasurement(
            date: date(elapsed), depth: measuredDepth.milli, pressure: pressure.milli,
            surfacePressure: measuredSurfacePressure, submersionState: state
        )
    }

    /// 3 Hz water temperature while submerged: colder with depth; the reading starts 3 °C warm
    /// and converges, with an uncertainty that shrinks accordingly.
    func waterTemperature(elapsed: Double, random: inout SplitMix64) -> WaterTemperature {
        let depth = dive?.depth(at: elapsed) ?? 0
        let sinceSubmerged = dive?.dive(at: elapsed)?.sinceSubmerged ?? 0
        let convergence = exp(-sinceSubmerged / 15)
        let temperature = environment.surfaceWaterTemperature - 0.3 * depth + 3 * convergence
        return WaterTemperature(
            date: date(elapsed),
            temperature: (temperature + random.nextGaussian() * 0.02).milli,
            temperatureUncertainty: (0.2 + 1.5 * convergence).milli
        )
    }

    /// 1 Hz cumulative pedometer data since the workout started; nothing accrues while paused.
    mutating func pedometerData(elapsed: Double, random: inout SplitMix64) -> PedometerData {
        let isPaused = DeviceEnvironment.isPedometerPaused(at: elapsed - 0.5)
        var cadence: Double?
        if !isPaused {
            let currentCadence = max(0, environment.cadence * (1 + 0.05 * random.nextGaussian()))
            pedometer.steps += currentCadence
            pedometer.activeSeconds += 1
            cadence = currentCadence.milli
        }
        let distance = pedometer.steps * environment.strideLength
        let climb = environment.climb(at: elapsed)
        return PedometerData(
            startDate: date(0),
            endDate: date(elapsed),
            numberOfSteps: Int(pedometer.steps),
            distance: distance.milli,
            floorsAscended: Int(climb.ascended / 3),
            floorsDescended: Int(climb.descended / 3),
            currentPace: cadence.flatMap { $0 > 0 ? (1 / ($0 * environment.strideLength)).milli : nil },
            currentCadence: cadence,
            averageActivePace: distance > 0 ? (pedometer.activeSeconds / distance).milli : nil
        )
    }

    /// 1 Hz barometric altitude relative to the first reading, and air pressure.
    mutating func altitudeSample(elapsed: Double, random: inout SplitMix64) -> AltitudeSample {
        let measured = environment.altitude(at: elapsed) + random.nextGaussian() * 0.05
        let origin = altitudeOrigin ?? measured
        altitudeOrigin = origin
        let pressure = DeviceEnvironment.airPressure(atAltitude: environment.baseAltitude + measured)
        return AltitudeSample(
            timestamp: timestamp(elapsed), relativeAltitude: (measured - origin).milli, pressure: pressure.micro
        )
    }
}
