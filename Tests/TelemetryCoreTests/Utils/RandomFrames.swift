import TelemetryCore
import TelemetrySimulation

/// Random models of every stream for property tests: arbitrary finite doubles (tiny, huge,
/// negative, integral), optional members present or not, every enum case, and strings with
/// escapes and non-ASCII text. Values are not physically valid; only the encoding is under test.
struct RandomFrames {
    private var random: SplitMix64

    init(seed: UInt64) {
        random = SplitMix64(seed: seed)
    }

    /// A random frame of `stream`.
    mutating func frame(_ stream: InboundStream) -> DecodedFrame {
        switch stream {
        case .hello:
            .hello(
                DeviceDescriptor(
                    model: string(), platform: string(), osVersion: string(), app: string(), authorization: pick(),
                    wristLocation: maybe(pick()), crownOrientation: maybe(pick()), headphones: maybe(string())
                ),
                sequence: sequence()
            )
        case .status: .status(DeviceStatus(state: pick(), date: maybe(double())), sequence: sequence())
        case .authorization: .authorization(AuthorizationChange(status: pick(), date: double()), sequence: sequence())
        case .workout: .workout(WorkoutEvent(state: pick(), activityType: string(), date: double()), sequence: sequence())
        case .headphoneConnection: .headphoneConnection(HeadphoneConnectionEvent(kind: pick(), date: double()), sequence: sequence())
        case .headphoneMotion: .headphoneMotion(motionBatch())
        case .motion: .motion(motionBatch())
        case .batchedDeviceMotion: .batchedDeviceMotion(motionBatch())
        case .batchedAccelerometer:
            .batchedAccelerometer(
                AccelerometerBatch(
                    samples: (0..<sampleCount()).map { _ in AccelerometerSample(timestamp: double(), acceleration: vector()) },
                    sequence: sequence()
                )
            )
        case .submersionEvent: .submersionEvent(SubmersionEvent(date: double(), state: pick()), sequence: sequence())
        case .submersionMeasurement:
            .submersionMeasurement(
                SubmersionMeasurement(
                    date: double(), depth: maybe(double()), pressure: maybe(double()), surfacePressure: double(), submersionState: pick()
                ),
                sequence: sequence()
            )
        case .submersionTemperature:
            .submersionTemperature(WaterTemperature(date: double(), temperature: double(), temperatureUncertainty: double()), sequence: sequence())
        case .pedometerData:
            .pedometerData(
                PedometerData(
                    startDate: double(), endDate: double(), numberOfSteps: integer(), distance: maybe(double()),
                    floorsAscended: maybe(integer()), floorsDescended: maybe(integer()), currentPace: maybe(double()),
                    currentCadence: maybe(double()), averageActivePace: maybe(double())
                ),
                sequence: sequence()
            )
        case .pedometerEvent: .pedometerEvent(PedometerEvent(date: double(), type: pick()), sequence: sequence())
        case .altimeter: .altimeter(AltitudeSample(timestamp: double(), relativeAltitude: double(), pressure: double()), sequence: sequence())
        case .recorderAccelerometer:
            .recorderAccelerometer(
                RecordedAccelerometerChunk(
                    identifier: random.next(),
                    samples: (0..<sampleCount()).map { _ in
                        RecordedAccelerometerSample(timestamp: double(), startDate: double(), acceleration: vector())
                    },
                    sequence: sequence()
                )
            )
        }
    }

    // MARK: Values

    private mutating func motionBatch() -> DeviceMotionBatch {
        DeviceMotionBatch(
            samples: (0..<sampleCount()).map { _ in
                DeviceMotion(
                    timestamp: double(), attitude: Quaternion(x: double(), y: double(), z: double(), w: double()),
                    rotationRate: vector(), gravity: vector(), userAcceleration: vector(), sensorLocation: pick(),
                    magneticField: maybe(MagneticField(field: vector(), accuracy: pick())),
                    // A negative heading decodes as nil (Core Motion's "invalid"), so only non-negative ones round-trip.
                    heading: maybe(abs(double()))
                )
            },
            sequence: sequence()
        )
    }

    /// 0 to 5 samples.
    private mutating func sampleCount() -> Int { Int(random.next() % 6) }

    /// Doubles of every shape: small integers, short decimals, anything finite (bit patterns).
    mutating func double() -> Double {
        switch random.next() % 4 {
        case 0: return Double(Int64(bitPattern: random.next()) % 1_000)
        case 1: return (random.nextGaussian() * 1_000 * 1e6).rounded() / 1e6
        case 2: return random.nextGaussian() * 1e12
        default:
            while true {
                let value = Double(bitPattern: random.next())
                if value.isFinite { return value }
            }
        }
    }

    private mutating func vector() -> Vector3 { Vector3(x: double(), y: double(), z: double()) }

    private mutating func integer() -> Int { Int(Int32(truncatingIfNeeded: random.next())) }

    private mutating func sequence() -> UInt64? { maybe(random.next() >> (random.next() % 64)) }

    private mutating func string() -> String {
        let pieces = ["Apple Watch", "é", "🙂", "\"", "\\", "\n", "\t", "\u{01}", "/", "10.1", " ", "AirPods Pro (2nd generation)", ""]
        return (0..<Int(random.next() % 5)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
    }

    private mutating func pick<Value: CaseIterable>() -> Value {
        let cases = Array(Value.allCases)
        return cases[Int(random.next() % UInt64(cases.count))]
    }

    /// `value` or nil, at random (the value is drawn either way, which keeps this a plain call).
    private mutating func maybe<Value>(_ value: Value) -> Value? {
        random.next() % 2 == 0 ? value : nil
    }
}
