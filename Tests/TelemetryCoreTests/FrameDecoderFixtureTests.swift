import Testing
import TelemetryCore

/// Golden fixtures: each stream's `Fixtures/json/<stream>.json` decodes to a hand-written model.
@Suite struct FrameDecoderFixtureTests {
    /// The model each fixture holds, written out by hand from the fixture text.
    static let expected: [InboundStream: DecodedFrame] = [
        .hello: .hello(
            DeviceDescriptor(
                model: "Apple Watch Ultra 2", platform: "watchOS", osVersion: "10.1", app: "com.example.dive",
                authorization: .authorized, wristLocation: .left, crownOrientation: .right,
                headphones: "AirPods Pro (2nd generation)"
            ),
            sequence: nil
        ),
        .status: .status(DeviceStatus(state: .offline, date: 1_700_000_000.25), sequence: nil),
        .authorization: .authorization(AuthorizationChange(status: .denied, date: 1_700_000_001.5), sequence: 3),
        .workout: .workout(WorkoutEvent(state: .running, activityType: "tennis", date: 1_700_000_002), sequence: 1),
        .headphoneConnection: .headphoneConnection(HeadphoneConnectionEvent(kind: .disconnected, date: 1_700_000_003.125), sequence: 2),
        .headphoneMotion: .headphoneMotion(
            DeviceMotionBatch(
                samples: [
                    DeviceMotion(
                        timestamp: 86_400.04, attitude: Quaternion(x: 0.01, y: -0.02, z: 0.7, w: 0.713825),
                        rotationRate: Vector3(x: 0.12, y: -0.5, z: 1.25), gravity: Vector3(x: 0.05, y: -0.1, z: -0.99),
                        userAcceleration: Vector3(x: 0.002, y: -0.003, z: 0.01), sensorLocation: .headphoneLeft
                    ),
                    DeviceMotion(
                        timestamp: 86_400.08, attitude: Quaternion(x: 0.011, y: -0.021, z: 0.699, w: 0.714781),
                        rotationRate: Vector3(x: 0.1, y: -0.45, z: 1.2), gravity: Vector3(x: 0.05, y: -0.1, z: -0.99),
                        userAcceleration: Vector3(x: 0.001, y: -0.002, z: 0.012), sensorLocation: .headphoneRight
                    ),
                ],
                sequence: 118
            )
        ),
        .motion: .motion(
            DeviceMotionBatch(
                samples: [
                    DeviceMotion(
                        timestamp: 1_234.5, attitude: Quaternion(x: 0, y: 0, z: 0.6, w: 0.8),
                        rotationRate: Vector3(x: 1.5, y: -2, z: 0.125), gravity: Vector3(x: 0, y: 0, z: -1),
                        userAcceleration: Vector3(x: 0.01, y: 0, z: -0.5), sensorLocation: .default,
                        magneticField: MagneticField(field: Vector3(x: 20, y: -3.5, z: -42), accuracy: .high), heading: 271.5
                    ),
                    // No sensorLocation: the default; heading -1 is Core Motion's "invalid": nil.
                    DeviceMotion(
                        timestamp: 1_234.52, attitude: Quaternion(x: 0, y: 0, z: 0.6, w: 0.8),
                        rotationRate: Vector3(x: 1.25, y: -1.75, z: 0.25), gravity: Vector3(x: 0, y: 0, z: -1),
                        userAcceleration: Vector3(x: 0.02, y: 0.01, z: -0.25),
                        magneticField: MagneticField(field: Vector3(x: 19.5, y: -3, z: -41.5), accuracy: .uncalibrated), heading: nil
                    ),
                ],
                sequence: 7
            )
        ),
        .batchedAccelerometer: .batchedAccelerometer(
            AccelerometerBatch(
                samples: [
                    AccelerometerSample(timestamp: 5_000.001_25, acceleration: Vector3(x: 0.012345, y: -0.98, z: 0.05)),
                    AccelerometerSample(timestamp: 5_000.0025, acceleration: Vector3(x: 0.0125, y: -0.975, z: 0.051)),
                    AccelerometerSample(timestamp: 5_000.003_75, acceleration: Vector3(x: 2.5, y: -3, z: 7.75)),
                ],
                sequence: 41
            )
        ),
        .batchedDeviceMotion: .batchedDeviceMotion(
            DeviceMotionBatch(
                samples: [
                    DeviceMotion(
                        timestamp: 5_000.005, attitude: Quaternion(x: 0.5, y: 0.5, z: 0.5, w: 0.5),
                        rotationRate: Vector3(x: 12.5, y: -3, z: 0.5), gravity: Vector3(x: -1, y: 0, z: 0),
                        userAcceleration: Vector3(x: 1.5, y: -0.25, z: 0)
                    ),
                    DeviceMotion(
                        timestamp: 5_000.01, attitude: Quaternion(x: 0.5, y: 0.5, z: 0.5, w: 0.5),
                        rotationRate: Vector3(x: 14, y: -3.5, z: 0.75), gravity: Vector3(x: -1, y: 0, z: 0),
                        userAcceleration: Vector3(x: 2, y: -0.5, z: 0.125)
                    ),
                ],
                sequence: 12
            )
        ),
        .submersionEvent: .submersionEvent(SubmersionEvent(date: 1_700_000_100.5, state: .submerged), sequence: 5),
        .submersionMeasurement: .submersionMeasurement(
            SubmersionMeasurement(
                date: 1_700_000_101, depth: 12.345, pressure: 225.7, surfacePressure: 101.325, submersionState: .submergedDeep
            ),
            sequence: 6
        ),
        .submersionTemperature: .submersionTemperature(
            WaterTemperature(date: 1_700_000_101.333, temperature: 18.25, temperatureUncertainty: 0.5), sequence: 4
        ),
        .pedometerData: .pedometerData(
            PedometerData(
                startDate: 1_700_000_000, endDate: 1_700_000_060, numberOfSteps: 96, distance: 71.04, floorsAscended: 1,
                floorsDescended: 0, currentPace: 0.625, currentCadence: 1.6, averageActivePace: 0.8446
            ),
            sequence: 60
        ),
        .pedometerEvent: .pedometerEvent(PedometerEvent(date: 1_700_000_020, type: .pause), sequence: 9),
        .altimeter: .altimeter(AltitudeSample(timestamp: 5_234.5, relativeAltitude: -1.25, pressure: 100.9), sequence: 30),
        .recorderAccelerometer: .recorderAccelerometer(
            RecordedAccelerometerChunk(
                identifier: 9_000_000_000_000_000_001,
                samples: [
                    RecordedAccelerometerSample(
                        timestamp: 7_000, startDate: 1_700_000_200, acceleration: Vector3(x: 0.1, y: 0.2, z: -0.97)
                    ),
                    RecordedAccelerometerSample(
                        timestamp: 7_000.02, startDate: 1_700_000_200.02, acceleration: Vector3(x: 0.11, y: 0.19, z: -0.98)
                    ),
                ],
                sequence: 2
            )
        ),
    ]

    @Test("every stream has a fixture")
    func coversEveryStream() {
        #expect(Set(Self.expected.keys) == Set(InboundStream.allCases))
    }

    @Test("the fixture decodes to the hand-written model and is valid", arguments: InboundStream.allCases)
    func decodesFixture(_ stream: InboundStream) throws {
        let frame = try FrameDecoder.decodeJSON(try Fixture.json(stream), stream: stream).get()
        #expect(frame == Self.expected[stream])
        #expect(frame.stream == stream)
        #expect(FrameValidator.validate(frame) == nil)
    }

    @Test("the fixture's model encodes and decodes back to itself", arguments: InboundStream.allCases)
    func encodesBack(_ stream: InboundStream) throws {
        let model = try #require(Self.expected[stream])
        #expect(FrameDecoder.decodeJSON(model.contractJSON, stream: stream).value == model)
    }

    @Test("the sequence is read uniformly")
    func sequences() {
        #expect(Self.expected[.hello]?.sequence == nil)
        #expect(Self.expected[.altimeter]?.sequence == 30)
        #expect(Self.expected[.batchedAccelerometer]?.sequence == 41)
        #expect(Self.expected[.recorderAccelerometer]?.sequence == 2)
    }
}
