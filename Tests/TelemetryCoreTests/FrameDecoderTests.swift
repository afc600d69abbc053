import CSimdjson
import Testing

@testable import TelemetryCore

@Suite struct FrameDecoderTests {
    private static let attitude = #""attitude":{"x":0,"y":0,"z":0,"w":1}"#
    private static let vectors = #""rotationRate":{"x":0,"y":0,"z":0},"gravity":{"x":0,"y":0,"z":-1},"userAcceleration":{"x":0,"y":0,"z":0}"#

    /// A device-motion frame with one sample whose members after the required ones are `extra`.
    private static func motion(_ extra: String) -> String {
        #"{"samples":[{"timestamp":1,\#(attitude),\#(vectors)\#(extra.isEmpty ? "" : ",")\#(extra)}]}"#
    }

    // MARK: Problems, with the member's path

    @Test("names the member and sample of a decoding problem", arguments: [
        (#"{"samples":[{"timestamp":1,"acceleration":{"x":1,"y":2,"z":"3"}}]}"#, InboundStream.batchedAccelerometer, "samples[0].acceleration.z: not a number"),
        (#"{"samples":[{"timestamp":1,"acceleration":{"x":1,"y":2}}]}"#, .batchedAccelerometer, "samples[0].acceleration.z: missing"),
        (#"{"samples":[{"timestamp":1}]}"#, .batchedAccelerometer, "samples[0].acceleration: missing"),
        (#"{"samples":[{"timestamp":1,"acceleration":[1,2,3]}]}"#, .batchedAccelerometer, "samples[0].acceleration: not an object"),
        (#"{"samples":[{"timestamp":null,"acceleration":{"x":1,"y":2,"z":3}}]}"#, .batchedAccelerometer, "samples[0].timestamp: not a number"),
        (#"{"samples":[1]}"#, .batchedAccelerometer, "samples[0]: not an object"),
        (#"{"samples":{}}"#, .batchedAccelerometer, "samples: not an array"),
        (#"{"sample":[]}"#, .batchedAccelerometer, "samples: missing"),
        (#"{"sequence":-1,"samples":[]}"#, .batchedAccelerometer, "sequence: -1 is negative; expected an unsigned integer"),
        (#"{"sequence":"1","samples":[]}"#, .motion, "sequence: not an unsigned integer"),
        (#"{"sequence":1.5,"samples":[]}"#, .batchedDeviceMotion, "sequence: 1.5 is not an unsigned integer"),
        (#"{"samples":[{"timestamp":1,"rotationRate":{"x":0,"y":0,"z":0}}]}"#, .batchedDeviceMotion, "samples[0].attitude: missing"),
        (#"{"samples":[{"timestamp":1,"attitude":{"x":0,"y":0,"z":0}}]}"#, .headphoneMotion, "samples[0].attitude.w: missing"),
        (motion(#""sensorLocation":"chin""#), .headphoneMotion,
         "samples[0].sensorLocation: unknown value 'chin'; expected one of default (0), headphoneLeft (1), headphoneRight (2)"),
        (motion(#""sensorLocation":7"#), .motion,
         "samples[0].sensorLocation: unknown value 7; expected one of default (0), headphoneLeft (1), headphoneRight (2)"),
        (motion(#""sensorLocation":true"#), .motion, "samples[0].sensorLocation: not a case name or raw integer"),
        (motion(#""magneticField":{"x":1,"y":2,"z":3}"#), .motion, "samples[0].magneticField.accuracy: missing"),
        (motion(#""magneticField":{"x":1,"y":2,"accuracy":"high"}"#), .motion, "samples[0].magneticField.z: missing"),
        (motion(#""magneticField":5"#), .motion, "samples[0].magneticField: not an object"),
        (motion(#""heading":"north""#), .motion, "samples[0].heading: not a number"),
        (#"{"samples":[]}"#, .recorderAccelerometer, "identifier: missing"),
        (#"{"identifier":-5,"samples":[]}"#, .recorderAccelerometer, "identifier: -5 is negative; expected an unsigned integer"),
        (#"{"identifier":1,"samples":[{"timestamp":1,"acceleration":{"x":0,"y":0,"z":1}}]}"#, .recorderAccelerometer, "samples[0].startDate: missing"),
        (#"{"state":"away"}"#, .status, "state: unknown value 'away'; expected one of online, offline"),
        (#"{"state":1}"#, .status, "state: not a string"),
        (#"{"state":null}"#, .status, "state: not a string"),
        (#"{"status":{"state":"online"}}"#, .status, "state: missing"),
        (#"{"state":"online","date":"yesterday"}"#, .status, "date: not a number"),
        (#"{"date":1,"state":"diving"}"#, .submersionEvent, "state: unknown value 'diving'; expected one of unknown (0), notSubmerged (1), submerged (2)"),
        (#"{"date":1,"surfacePressure":101,"submersionState":250}"#, .submersionMeasurement,
         "submersionState: unknown value 250; expected one of unknown (0), notSubmerged (100), submergedShallow (200), submergedDeep (300), approachingMaxDepth (400), pastMaxDepth (500), sensorDepthError (600)"),
        (#"{"date":1,"submersionState":"notSubmerged"}"#, .submersionMeasurement, "surfacePressure: missing"),
        (#"{"startDate":0,"endDate":1,"numberOfSteps":12.5}"#, .pedometerData, "numberOfSteps: 12.5 is not an integer"),
        (#"{"startDate":0,"endDate":1,"numberOfSteps":"12"}"#, .pedometerData, "numberOfSteps: not an integer"),
        (#"{"startDate":0,"endDate":1,"numberOfSteps":1e30}"#, .pedometerData, "numberOfSteps: 1e+30 is not an integer"),
        (#"{"startDate":0,"endDate":1,"numberOfSteps":18446744073709551615}"#, .pedometerData,
         "numberOfSteps: 18446744073709551615 is too large for an integer"),
        (#"{"startDate":0,"endDate":1,"numberOfSteps":3,"floorsAscended":true}"#, .pedometerData, "floorsAscended: not an integer"),
        (#"{"model":5,"platform":"watchOS","osVersion":"10.1","app":"a","authorization":"authorized"}"#, .hello, "model: not a string"),
        (#"{"model":"m","platform":"watchOS","osVersion":"10.1","app":"a"}"#, .hello, "authorization: missing"),
        (#"{"model":"m","platform":"p","osVersion":"1","app":"a","authorization":3,"wristLocation":"middle"}"#, .hello,
         "wristLocation: unknown value 'middle'; expected one of left (0), right (1)"),
        (#"{"event":"paired","date":1}"#, .headphoneConnection, "event: unknown value 'paired'; expected one of connected, disconnected"),
        (#"{"activityType":"tennis","date":1}"#, .workout, "state: missing"),  // activityType is optional on paused/ended (validation requires it on running)
        (#"{"state":"walking","activityType":"tennis","date":1}"#, .workout,
         "state: unknown value 'walking'; expected one of running (2), ended (3), paused (4)"),
        (#"{"status":"authorized","date":"now"}"#, .authorization, "date: not a number"),
        (#"{"date":1,"temperature":20}"#, .submersionTemperature, "temperatureUncertainty: missing"),
        (#"{"date":1,"type":"stop"}"#, .pedometerEvent, "type: unknown value 'stop'; expected one of pause (0), resume (1)"),
        (#"{"timestamp":1,"relativeAltitude":0,"pressure":"high"}"#, .altimeter, "pressure: not a number"),
    ])
    func problems(_ json: String, _ stream: InboundStream, _ detail: String) {
        #expect(decodingDetail(json, stream) == detail)
    }

    @Test("counts the sample index through a large batch")
    func sampleIndex() {
        let good = #"{"timestamp":1,"acceleration":{"x":0,"y":0,"z":1}}"#
        let bad = #"{"timestamp":1,"acceleration":{"x":0,"y":0,"z":"one"}}"#
        let json = #"{"samples":["# + Array(repeating: good, count: 412).joined(separator: ",") + "," + bad + "]}"
        #expect(decodingDetail(json, .batchedAccelerometer) == "samples[412].acceleration.z: not a number")
    }

    @Test("classifies problems", arguments: [
        ("", InboundStream.altimeter, PayloadProblem.Reason.notJSONObject),
        (#"{"timestamp":1,"relativeAltitude":0}"#, .altimeter, .missingField),
        (#"{"timestamp":1,"relativeAltitude":0,"pressure":null}"#, .altimeter, .wrongType),
        (#"{"date":1,"type":"stop"}"#, .pedometerEvent, .unknownValue),
        (#"{"sequence":-1,"date":1,"type":"pause"}"#, .pedometerEvent, .notRepresentable),
        (#"{"samples":[{"timestamp":1,"acceleration":{"x":0,"y":0}}]}"#, .batchedAccelerometer, .missingField),
    ])
    func reasons(_ json: String, _ stream: InboundStream, _ reason: PayloadProblem.Reason) {
        guard case .failure(let problem) = decode(json, stream) else {
            Issue.record("decoded")
            return
        }
        #expect(problem.reason == reason)
    }

    // MARK: Whole payloads

    @Test("rejects what is not one JSON object, with simdjson's reason", arguments: [
        ("", "payload is not a JSON object: empty payload"),
        ("[1]", "payload is not a JSON object: top-level JSON value is not an object"),
        ("42", "payload is not a JSON object: top-level JSON value is not an object"),
    ])
    func notAnObject(_ json: String, _ detail: String) {
        for stream in InboundStream.allCases {
            #expect(decodingDetail(json, stream) == detail, "\(stream)")
        }
    }

    @Test("validates the whole document, ignored members and trailing text included", arguments: [
        #"{"state":"online"} x"#,
        #"{"state":"online","junk":[1,,2]}"#,
        #"{"state":"online","n":1e999}"#,
        #"{"state":"online","n":NaN}"#,
        #"{"state":"online""#,
        "{\"state\":\"online\",\"s\":\"\u{7}\"}",
    ])
    func malformed(_ json: String) throws {
        let detail = try #require(decodingDetail(json, .status))
        #expect(detail.hasPrefix("payload is not a JSON object: "))
        #expect(detail.count > "payload is not a JSON object: ".count)
    }

    @Test("rejects invalid UTF-8 even in an ignored member")
    func invalidUTF8() {
        let bytes = Array(#"{"state":"online","x":""#.utf8) + [0xFF] + Array(#""}"#.utf8)
        guard case .failure(let problem) = FrameDecoder.decodeJSON(bytes, stream: .status) else {
            Issue.record("decoded")
            return
        }
        #expect(problem.reason == .notJSONObject)
    }

    // MARK: Leniency the contract asks for

    @Test("accepts Core Motion raw integers for enums")
    func rawIntegers() throws {
        let measurement = try decode(#"{"date":1,"surfacePressure":101,"submersionState":300}"#, .submersionMeasurement).get()
        #expect(measurement == .submersionMeasurement(
            SubmersionMeasurement(date: 1, depth: nil, pressure: nil, surfacePressure: 101, submersionState: .submergedDeep), sequence: nil
        ))
        #expect(decode(#"{"status":3.0,"date":1}"#, .authorization).value == .authorization(AuthorizationChange(status: .authorized, date: 1), sequence: nil))
        #expect(decode(#"{"state":2,"activityType":"baseball","date":1}"#, .workout).value
            == .workout(WorkoutEvent(state: .running, activityType: "baseball", date: 1), sequence: nil))
        #expect(decode(#"{"date":1,"state":1}"#, .submersionEvent).value == .submersionEvent(SubmersionEvent(date: 1, state: .notSubmerged), sequence: nil))
        #expect(decode(#"{"date":1,"type":1}"#, .pedometerEvent).value == .pedometerEvent(PedometerEvent(date: 1, type: .resume), sequence: nil))
        let hello = #"{"model":"m","platform":"p","osVersion":"1","app":"a","authorization":0,"wristLocation":1,"crownOrientation":0}"#
        #expect(decode(hello, .hello).value == .hello(
            DeviceDescriptor(model: "m", platform: "p", osVersion: "1", app: "a", authorization: .notDetermined, wristLocation: .right, crownOrientation: .left),
            sequence: nil
        ))
        let motion = try decode(Self.motion(#""sensorLocation":2,"magneticField":{"x":1,"y":2,"z":3,"accuracy":-1}"#), .headphoneMotion).get()
        guard case .headphoneMotion(let batch) = motion else {
            Issue.record("not headphone motion")
            return
        }
        #expect(batch.samples.first?.sensorLocation == .headphoneRight)
        #expect(batch.samples.first?.magneticField == MagneticField(field: Vector3(x: 1, y: 2, z: 3), accuracy: .uncalibrated))
    }

    @Test("ignores unknown members at every level and reads duplicates' first value")
    func unknownMembers() {
        let json = #"{"v":2,"samples":[{"timestamp":1,"extra":{"deep":[1,{"x":2}]},"acceleration":{"x":1,"y":2,"z":3,"t":"unit"}}],"samples":[],"sequence":9,"sequence":10}"#
        #expect(decode(json, .batchedAccelerometer).value == .batchedAccelerometer(
            AccelerometerBatch(samples: [AccelerometerSample(timestamp: 1, acceleration: Vector3(x: 1, y: 2, z: 3))], sequence: 9)
        ))
        #expect(decode(#"{"state":"online","state":"offline"}"#, .status).value == .status(DeviceStatus(state: .online), sequence: nil))
    }

    @Test("reads null optional members as absent")
    func nullOptionals() {
        #expect(decode(#"{"state":"offline","date":null,"sequence":null}"#, .status).value == .status(DeviceStatus(state: .offline), sequence: nil))
        let measurement = #"{"date":1,"depth":null,"pressure":null,"surfacePressure":101.3,"submersionState":"notSubmerged"}"#
        #expect(decode(measurement, .submersionMeasurement).value == .submersionMeasurement(
            SubmersionMeasurement(date: 1, depth: nil, pressure: nil, surfacePressure: 101.3, submersionState: .notSubmerged), sequence: nil
        ))
        let motion = decode(Self.motion(#""sensorLocation":null,"magneticField":null,"heading":null"#), .motion).value
        #expect(motion == .motion(DeviceMotionBatch(samples: [
            DeviceMotion(timestamp: 1, attitude: .identity, rotationRate: .zero, gravity: Vector3(x: 0, y: 0, z: -1), userAcceleration: .zero)
        ])))
    }

    @Test("reads integers exactly", arguments: [
        ("0", UInt64(0)), ("18446744073709551615", UInt64.max), ("9007199254740993", 9_007_199_254_740_993), ("7.0", 7), ("1e3", 1_000),
    ])
    func unsignedIntegers(_ text: String, _ expected: UInt64) {
        #expect(decode(#"{"sequence":\#(text),"timestamp":1,"relativeAltitude":0,"pressure":100}"#, .altimeter).value?.sequence == expected)
    }

    @Test("decodes from borrowed memory like from an array")
    func rawBuffer() throws {
        let payload = try Fixture.json(.motion)
        let borrowed = payload.withUnsafeBytes { FrameDecoder.decodeJSON($0, stream: .motion) }
        #expect(borrowed == FrameDecoder.decodeJSON(payload, stream: .motion))
        #expect(borrowed.value != nil)
    }

    @Test("an empty batch decodes (validation rejects it)")
    func emptyBatch() {
        #expect(decode(#"{"samples":[]}"#, .batchedAccelerometer).value == .batchedAccelerometer(AccelerometerBatch(samples: [])))
    }

    // MARK: Encodings

    @Test("each encoding goes to its decoder; binary is refused for low-rate streams")
    func encodings() throws {
        let payload = try Fixture.json(.altimeter)
        #expect(FrameDecoder.decode(payload, encoding: .json, stream: .altimeter) == FrameDecoder.decodeJSON(payload, stream: .altimeter))
        guard case .failure(let problem) = FrameDecoder.decode(payload, encoding: .protobuf, stream: .altimeter) else {
            Issue.record("a binary altimeter frame must be refused")
            return
        }
        #expect(problem.reason == .unsupportedEncoding)

        let batch = try Fixture.json(.batchedAccelerometer)
        let fromJSON = try FrameDecoder.decode(batch, encoding: .json, stream: .batchedAccelerometer).get()
        let binary = try #require(ProtobufFrameEncoder.encode(fromJSON))
        let fromBinary = try FrameDecoder.decode(binary, encoding: .protobuf, stream: .batchedAccelerometer).get()
        #expect(fromBinary.stream == .batchedAccelerometer)
        #expect(fromBinary.sequence == fromJSON.sequence)
    }

    // MARK: C buffer sizing

    @Test("a payload of minimal samples never overflows the sample buffer", arguments: [
        (InboundStream.batchedAccelerometer, #"{"timestamp":0,"acceleration":{"x":0,"y":0,"z":0}}"#, Int(WG_ACCELEROMETER_SAMPLE_MIN_JSON_BYTES)),
        (.recorderAccelerometer, #"{"timestamp":0,"startDate":0,"acceleration":{"x":0,"y":0,"z":0}}"#, Int(WG_RECORDED_ACCELEROMETER_SAMPLE_MIN_JSON_BYTES)),
        (.motion, #"{"timestamp":0,"attitude":{"x":0,"y":0,"z":0,"w":0},"rotationRate":{"x":0,"y":0,"z":0},"gravity":{"x":0,"y":0,"z":0},"userAcceleration":{"x":0,"y":0,"z":0}}"#,
         Int(WG_DEVICE_MOTION_SAMPLE_MIN_JSON_BYTES)),
    ])
    func minimalSamples(_ stream: InboundStream, _ minimalSample: String, _ documentedMinimum: Int) throws {
        // The shortest valid sample plus its comma is at least the documented minimum.
        #expect(minimalSample.utf8.count + 1 >= documentedMinimum)
        let count = 3_000
        let json = #"{"identifier":1,"samples":["# + Array(repeating: minimalSample, count: count).joined(separator: ",") + "]}"
        let frame = try decode(json, stream).get()
        switch frame {
        case .batchedAccelerometer(let batch): #expect(batch.samples.count == count)
        case .recorderAccelerometer(let chunk): #expect(chunk.samples.count == count)
        case .motion(let batch): #expect(batch.samples.count == count)
        default: Issue.record("unexpected \(frame.stream)")
        }
    }

    @Test("a too small sample buffer is a decoder failure, not a crash")
    func capacity() {
        let json = Array(#"{"samples":[{"timestamp":0,"acceleration":{"x":0,"y":0,"z":0}},{"timestamp":0,"acceleration":{"x":0,"y":0,"z":0}}]}"#.utf8)
        var samples = [wg_accelerometer_sample](repeating: wg_accelerometer_sample(), count: 1)
        var count = 0
        var problem = wg_decode_problem()
        let status = json.withUnsafeBufferPointer { data in
            wg_decode_accelerometer_batch(data.baseAddress, data.count, nil, &samples, 1, &count, &problem)
        }
        #expect(status == WG_DECODE_CAPACITY)
        #expect(count == 1)
        #expect(PayloadProblem(status, problem) == PayloadProblem(.decoderFailure, field: "samples[1]", message: "sample buffer too small (decoder bug)"))
    }
}
