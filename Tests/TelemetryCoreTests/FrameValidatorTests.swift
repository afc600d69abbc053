import Testing
import TelemetryCore

@Suite struct FrameValidatorTests {
    private static let still = DeviceMotion(
        timestamp: 10, attitude: .identity, rotationRate: .zero, gravity: Vector3(x: 0, y: 0, z: -1), userAcceleration: .zero
    )

    private static func motion(_ change: (inout DeviceMotion) -> Void) -> DecodedFrame {
        var sample = still
        change(&sample)
        return .batchedDeviceMotion(DeviceMotionBatch(samples: [sample]))
    }

    private static func accelerometer(_ samples: [(Double, Vector3)]) -> DecodedFrame {
        .batchedAccelerometer(AccelerometerBatch(samples: samples.map { AccelerometerSample(timestamp: $0.0, acceleration: $0.1) }))
    }

    private static func measurement(depth: Double? = 3, pressure: Double? = 131, surfacePressure: Double = 101) -> DecodedFrame {
        .submersionMeasurement(
            SubmersionMeasurement(date: 1, depth: depth, pressure: pressure, surfacePressure: surfacePressure, submersionState: .submergedDeep),
            sequence: nil
        )
    }

    private static func pedometer(_ change: (inout PedometerData) -> Void) -> DecodedFrame {
        var data = PedometerData(startDate: 20, endDate: 30, numberOfSteps: 10, distance: 7, floorsAscended: 0, floorsDescended: 0)
        change(&data)
        return .pedometerData(data, sequence: nil)
    }

    /// One frame per rule, with the detail it must produce.
    static let violations: [(DecodedFrame, String)] = [
        // Batch length and timestamps.
        (.batchedAccelerometer(AccelerometerBatch(samples: [])), "samples: empty batch; batched/accelerometer frames carry 1…1600 samples"),
        (accelerometer([(-1, Vector3(x: 0, y: 0, z: 1))]), "samples[0].timestamp: -1 is negative"),
        (accelerometer([(1, Vector3(x: 0, y: 0, z: 1)), (0.5, Vector3(x: 0, y: 0, z: 1))]),
         "samples[1].timestamp: 0.5 is earlier than the previous sample's 1"),
        (accelerometer([(.nan, Vector3(x: 0, y: 0, z: 1))]), "samples[0].timestamp: not a finite number (nan)"),
        // Vectors: finite components, magnitude bounds.
        (accelerometer([(1, Vector3(x: .infinity, y: 0, z: 1))]), "samples[0].acceleration.x: not a finite number (inf)"),
        (accelerometer([(1, Vector3(x: 0, y: 0, z: 65))]), "samples[0].acceleration: magnitude 65 g exceeds 64 g"),
        (accelerometer([(1, Vector3(x: 37, y: 37, z: 37))]), "samples[0].acceleration: magnitude 64.08587988004847 g exceeds 64 g"),
        (motion { $0.userAcceleration = Vector3(x: 0, y: 70, z: 0) }, "samples[0].userAcceleration: magnitude 70 g exceeds 64 g"),
        (motion { $0.rotationRate = Vector3(x: 0, y: 51, z: 0) }, "samples[0].rotationRate: magnitude 51 rad/s exceeds 50 rad/s"),
        (motion { $0.gravity = Vector3(x: 0, y: 0, z: -1.6) }, "samples[0].gravity: magnitude 1.6 g exceeds 1.5 g"),
        (motion { $0.gravity.z = .nan }, "samples[0].gravity.z: not a finite number (nan)"),
        (motion { $0.attitude = Quaternion(x: 0, y: 0, z: 0, w: 1.02) }, "samples[0].attitude: quaternion norm 1.02 is outside 1 ± 0.01"),
        (motion { $0.attitude.w = .nan }, "samples[0].attitude.w: not a finite number (nan)"),
        (motion { $0.magneticField = MagneticField(field: Vector3(x: 6_000, y: 0, z: 0), accuracy: .high) },
         "samples[0].magneticField: magnitude 6000 µT exceeds 5000 µT"),
        (motion { $0.heading = 360 }, "samples[0].heading: 360 is outside [0, 360) degrees"),
        (motion { $0.heading = .infinity }, "samples[0].heading: not a finite number (inf)"),
        (.recorderAccelerometer(RecordedAccelerometerChunk(identifier: 1, samples: [
            RecordedAccelerometerSample(timestamp: 1, startDate: -1, acceleration: Vector3(x: 0, y: 0, z: 1))
        ])), "samples[0].startDate: -1 is negative"),
        // Submersion.
        (measurement(depth: 250), "depth: 250 m is outside -1…200 m"),
        (measurement(depth: -2), "depth: -2 m is outside -1…200 m"),
        (measurement(pressure: 3_500), "pressure: 3500 kPa is outside 0…3000 kPa"),
        (measurement(surfacePressure: -1), "surfacePressure: -1 kPa is outside 0…3000 kPa"),
        (.submersionTemperature(WaterTemperature(date: 1, temperature: 70, temperatureUncertainty: 0.5), sequence: nil),
         "temperature: 70 °C is outside -5…60 °C"),
        (.submersionTemperature(WaterTemperature(date: 1, temperature: -5.5, temperatureUncertainty: 0.5), sequence: nil),
         "temperature: -5.5 °C is outside -5…60 °C"),
        (.submersionTemperature(WaterTemperature(date: 1, temperature: 20, temperatureUncertainty: -0.1), sequence: nil),
         "temperatureUncertainty: -0.1 is negative"),
        // Altimeter.
        (.altimeter(AltitudeSample(timestamp: 1, relativeAltitude: 0, pressure: 3_001), sequence: nil), "pressure: 3001 kPa is outside 0…3000 kPa"),
        (.altimeter(AltitudeSample(timestamp: 1, relativeAltitude: .infinity, pressure: 100), sequence: nil), "relativeAltitude: not a finite number (inf)"),
        (.altimeter(AltitudeSample(timestamp: -1, relativeAltitude: 0, pressure: 100), sequence: nil), "timestamp: -1 is negative"),
        // Dates.
        (.authorization(AuthorizationChange(status: .authorized, date: -5), sequence: nil), "date: -5 is negative"),
        (.status(DeviceStatus(state: .online, date: .nan), sequence: nil), "date: not a finite number (nan)"),
        (.submersionEvent(SubmersionEvent(date: -0.5, state: .submerged), sequence: nil), "date: -0.5 is negative"),
        // Pedometer.
        (pedometer { $0.endDate = 10 }, "endDate: 10 is before startDate 20"),
        (pedometer { $0.numberOfSteps = -1 }, "numberOfSteps: -1 is negative"),
        (pedometer { $0.distance = -1 }, "distance: -1 is negative"),
        (pedometer { $0.floorsDescended = -2 }, "floorsDescended: -2 is negative"),
        (pedometer { $0.currentCadence = -0.5 }, "currentCadence: -0.5 is negative"),
    ]

    @Test("reports the broken rule with the member and sample", arguments: violations)
    func violation(_ frame: DecodedFrame, _ detail: String) {
        #expect(FrameValidator.validate(frame)?.detail == detail)
    }

    @Test("accepts values at the bounds")
    func bounds() {
        let frames: [DecodedFrame] = [
            Self.accelerometer([(0, Vector3(x: 0, y: 0, z: 64)), (0, Vector3(x: 0, y: -64, z: 0))]),
            Self.motion { $0.attitude = Quaternion(x: 0, y: 0, z: 0, w: 1.005) },
            Self.motion { $0.rotationRate = Vector3(x: 50, y: 0, z: 0) },
            Self.motion { $0.gravity = Vector3(x: 1.5, y: 0, z: 0) },
            Self.motion { $0.heading = 0 },
            Self.measurement(depth: -1, pressure: 0, surfacePressure: 3_000),
            Self.measurement(depth: 200, pressure: nil, surfacePressure: 0),
            .submersionTemperature(WaterTemperature(date: 0, temperature: 60, temperatureUncertainty: 0), sequence: nil),
            .status(DeviceStatus(state: .offline), sequence: nil),
            .hello(DeviceDescriptor(model: "", platform: "", osVersion: "", app: "", authorization: .denied), sequence: nil),
        ]
        for frame in frames {
            #expect(FrameValidator.validate(frame) == nil, "\(frame)")
        }
    }

    @Test("bounds batch lengths per stream", arguments: InboundStream.allCases.filter(\.isHighRate))
    func batchLengths(_ stream: InboundStream) throws {
        let allowed = try #require(ValidationLimits().batchLength(for: stream))
        let frame = { (count: Int) -> DecodedFrame in
            let motion = DeviceMotionBatch(samples: Array(repeating: Self.still, count: count))
            let acceleration = AccelerometerSample(timestamp: 1, acceleration: Vector3(x: 0, y: 0, z: 1))
            let recorded = RecordedAccelerometerSample(timestamp: 1, startDate: 1, acceleration: Vector3(x: 0, y: 0, z: 1))
            return switch stream {
            case .batchedAccelerometer: .batchedAccelerometer(AccelerometerBatch(samples: Array(repeating: acceleration, count: count)))
            case .recorderAccelerometer: .recorderAccelerometer(RecordedAccelerometerChunk(identifier: 1, samples: Array(repeating: recorded, count: count)))
            case .batchedDeviceMotion: .batchedDeviceMotion(motion)
            case .headphoneMotion: .headphoneMotion(motion)
            default: .motion(motion)
            }
        }
        #expect(FrameValidator.validate(frame(allowed.upperBound)) == nil)
        #expect(FrameValidator.validate(frame(1)) == nil)
        let tooMany = FrameValidator.validate(frame(allowed.upperBound + 1))
        #expect(tooMany?.detail == "samples: \(allowed.upperBound + 1) samples; \(stream.rawValue) frames carry 1…\(allowed.upperBound)")
        #expect(tooMany?.reason == .sampleCount)
        #expect(FrameValidator.validate(frame(0))?.detail == "samples: empty batch; \(stream.rawValue) frames carry 1…\(allowed.upperBound) samples")
    }

    @Test("documents the limits the issue asks for")
    func defaults() {
        let limits = ValidationLimits()
        #expect(limits.maxAcceleration == 64)
        #expect(limits.maxRotationRate == 50)
        #expect(limits.quaternionNormTolerance == 0.01)
        #expect(limits.maxGravity == 1.5)
        #expect(limits.depthRange == -1...200)
        #expect(limits.pressureRange == 0...3_000)
        #expect(limits.waterTemperatureRange == -5...60)
        #expect(limits.batchLength(for: .batchedAccelerometer) == 1...1_600)
        #expect(limits.batchLength(for: .batchedDeviceMotion) == 1...400)
        #expect(limits.batchLength(for: .motion) == 1...200)
        #expect(limits.batchLength(for: .headphoneMotion) == 1...200)
        #expect(limits.batchLength(for: .recorderAccelerometer) == 1...3_000)
        #expect(limits.batchLength(for: .altimeter) == nil)
    }

    @Test("applies configured limits")
    func customLimits() {
        let frame = Self.accelerometer([(1, Vector3(x: 0, y: 0, z: 20))])
        #expect(FrameValidator.validate(frame) == nil)
        #expect(FrameValidator.validate(frame, limits: ValidationLimits(maxAcceleration: 16))?.detail == "samples[0].acceleration: magnitude 20 g exceeds 16 g")
    }

    @Test("problems carry a reason for metrics")
    func reasons() {
        #expect(FrameValidator.validate(Self.accelerometer([(1, Vector3(x: 0, y: 0, z: 65))]))?.reason == .outOfBounds)
        #expect(FrameValidator.validate(Self.accelerometer([(.nan, Vector3(x: 0, y: 0, z: 1))]))?.reason == .notFinite)
        #expect(FrameValidator.validate(Self.accelerometer([(2, .zero), (1, .zero)]))?.reason == .timestampOrder)
        #expect(FrameValidator.validate(.batchedAccelerometer(AccelerometerBatch(samples: [])))?.reason == .sampleCount)
    }
}
