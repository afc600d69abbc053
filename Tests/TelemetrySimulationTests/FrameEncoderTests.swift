import Testing
import TelemetryCore

@Suite("Contract JSON encoding")
struct FrameEncoderTests {
    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test("a device-motion batch with every field, enums as names, sequence first")
    func deviceMotionBatch() {
        let sample = DeviceMotion(
            timestamp: 1234.5,
            attitude: Quaternion(x: 0, y: 0, z: 0.5, w: -0.25),
            rotationRate: Vector3(x: 1.5, y: -2, z: 0.125),
            gravity: Vector3(x: 0, y: 0, z: -1),
            userAcceleration: Vector3(x: 0.01, y: 0, z: -0.5),
            sensorLocation: .headphoneRight,
            magneticField: MagneticField(field: Vector3(x: 20, y: -3.5, z: -42), accuracy: .uncalibrated),
            heading: 271.5
        )
        let json = text(FrameEncoder.encode(DeviceMotionBatch(samples: [sample], sequence: 7)))
        #expect(
            json == """
                {"sequence":7,"samples":[{"timestamp":1234.5,"attitude":{"x":0,"y":0,"z":0.5,"w":-0.25},\
                "rotationRate":{"x":1.5,"y":-2,"z":0.125},"gravity":{"x":0,"y":0,"z":-1},\
                "userAcceleration":{"x":0.01,"y":0,"z":-0.5},"sensorLocation":"headphoneRight",\
                "magneticField":{"x":20,"y":-3.5,"z":-42,"accuracy":"uncalibrated"},"heading":271.5}]}
                """
        )
    }

    @Test("optional fields are omitted, and so is a missing sequence")
    func omitsNil() {
        let sample = DeviceMotion(
            timestamp: 1, attitude: .identity, rotationRate: .zero, gravity: Vector3(x: 0, y: 0, z: -1),
            userAcceleration: .zero
        )
        #expect(
            text(FrameEncoder.encode(DeviceMotionBatch(samples: [sample])))
                == """
                {"samples":[{"timestamp":1,"attitude":{"x":0,"y":0,"z":0,"w":1},"rotationRate":{"x":0,"y":0,"z":0},\
                "gravity":{"x":0,"y":0,"z":-1},"userAcceleration":{"x":0,"y":0,"z":0},"sensorLocation":"default"}]}
                """
        )
        let surfaced = SubmersionMeasurement(
            date: 1_700_000_000.5, depth: nil, pressure: nil, surfacePressure: 101.325, submersionState: .notSubmerged
        )
        #expect(
            text(FrameEncoder.encode(surfaced, sequence: 3))
                == #"{"sequence":3,"date":1700000000.5,"surfacePressure":101.325,"submersionState":"notSubmerged"}"#
        )
        let steps = PedometerData(startDate: 10, endDate: 20.5, numberOfSteps: 12, floorsAscended: 0)
        #expect(text(FrameEncoder.encode(steps)) == #"{"startDate":10,"endDate":20.5,"numberOfSteps":12,"floorsAscended":0}"#)
        #expect(text(FrameEncoder.encode(DeviceStatus(state: .offline))) == #"{"state":"offline"}"#)
    }

    @Test("accelerometer batch and recorded chunk")
    func accelerometerShapes() {
        let batch = AccelerometerBatch(
            samples: [
                AccelerometerSample(timestamp: 10, acceleration: Vector3(x: 0.1, y: -0.2, z: -0.98)),
                AccelerometerSample(timestamp: 10.00125, acceleration: Vector3(x: 0.1, y: -0.2, z: -0.99)),
            ],
            sequence: 1
        )
        #expect(
            text(FrameEncoder.encode(batch))
                == """
                {"sequence":1,"samples":[{"timestamp":10,"acceleration":{"x":0.1,"y":-0.2,"z":-0.98}},\
                {"timestamp":10.00125,"acceleration":{"x":0.1,"y":-0.2,"z":-0.99}}]}
                """
        )
        let chunk = RecordedAccelerometerChunk(
            identifier: 42,
            samples: [RecordedAccelerometerSample(timestamp: 5, startDate: 1_700_000_000.02, acceleration: Vector3(x: 0, y: 0, z: -1))]
        )
        #expect(
            text(FrameEncoder.encode(chunk))
                == #"{"identifier":42,"samples":[{"timestamp":5,"startDate":1700000000.02,"acceleration":{"x":0,"y":0,"z":-1}}]}"#
        )
    }

    @Test("event payloads")
    func events() {
        let watch = DeviceDescriptor(
            model: "Apple Watch Ultra 2", platform: "watchOS", osVersion: "10.1", app: "com.example.dive",
            authorization: .authorized, wristLocation: .left, crownOrientation: .right
        )
        #expect(
            text(FrameEncoder.encode(watch))
                == """
                {"model":"Apple Watch Ultra 2","platform":"watchOS","osVersion":"10.1","app":"com.example.dive",\
                "authorization":"authorized","wristLocation":"left","crownOrientation":"right"}
                """
        )
        #expect(
            text(FrameEncoder.encode(AuthorizationChange(status: .denied, date: 5), sequence: 2))
                == #"{"sequence":2,"status":"denied","date":5}"#
        )
        #expect(
            text(FrameEncoder.encode(WorkoutEvent(state: .paused, activityType: "tennis", date: 6)))
                == #"{"state":"paused","activityType":"tennis","date":6}"#
        )
        #expect(
            text(FrameEncoder.encode(HeadphoneConnectionEvent(kind: .disconnected, date: 7)))
                == #"{"event":"disconnected","date":7}"#
        )
        #expect(text(FrameEncoder.encode(SubmersionEvent(date: 8, state: .submerged))) == #"{"date":8,"state":"submerged"}"#)
        #expect(
            text(FrameEncoder.encode(WaterTemperature(date: 9, temperature: 21.5, temperatureUncertainty: 0.25)))
                == #"{"date":9,"temperature":21.5,"temperatureUncertainty":0.25}"#
        )
        #expect(text(FrameEncoder.encode(PedometerEvent(date: 10, type: .resume))) == #"{"date":10,"type":"resume"}"#)
        #expect(
            text(FrameEncoder.encode(AltitudeSample(timestamp: 11.5, relativeAltitude: -0.25, pressure: 100.5)))
                == #"{"timestamp":11.5,"relativeAltitude":-0.25,"pressure":100.5}"#
        )
        let deep = SubmersionMeasurement(
            date: 12, depth: 3.25, pressure: 134.0, surfacePressure: 101.5, submersionState: .submergedDeep
        )
        #expect(
            text(FrameEncoder.encode(deep))
                == #"{"date":12,"depth":3.25,"pressure":134,"surfacePressure":101.5,"submersionState":"submergedDeep"}"#
        )
    }
}
