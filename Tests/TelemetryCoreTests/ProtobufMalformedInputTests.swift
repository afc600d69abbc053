import TelemetrySimulation
import Testing

@testable import TelemetryCore

/// Bad binary input: every problem is a value with a precise detail, never a crash.
@Suite struct ProtobufMalformedInputTests {
    private static let highRateStreams = InboundStream.allCases.filter(\.isHighRate)

    // MARK: Precise problems

    @Test("parallel columns of different lengths name both counts")
    func mismatchedColumns() {
        var batch = Wearable_V1_AccelerometerBatch()
        batch.timestamp = (0..<800).map { Double($0) / 800 }
        batch.x = Array(repeating: 0.5, count: 799)
        batch.y = Array(repeating: 0, count: 800)
        batch.z = Array(repeating: 1, count: 800)
        #expect(
            ProtobufFrameDecoder.decodeAccelerometerBatch(ProtobufFrameEncoder.serialized(batch))
                == .failure(PayloadProblem(.sampleCount, field: "samples", message: "800 timestamps but 799 x values"))
        )
        #expect(
            ProtobufFrameDecoder.decodeAccelerometerBatch(ProtobufFrameEncoder.serialized(batch)).problem?.detail
                == "samples: 800 timestamps but 799 x values"
        )
        batch.x.append(0.5)
        batch.z.removeAll()
        #expect(
            ProtobufFrameDecoder.decodeAccelerometerBatch(ProtobufFrameEncoder.serialized(batch))
                == .failure(PayloadProblem(.sampleCount, field: "samples", message: "800 timestamps but 0 z values"))
        )
        batch.timestamp.removeAll()
        batch.x.removeAll()
        batch.y.removeAll()
        batch.z = [1]
        #expect(
            ProtobufFrameDecoder.decodeAccelerometerBatch(ProtobufFrameEncoder.serialized(batch))
                == .failure(PayloadProblem(.sampleCount, field: "samples", message: "0 timestamps but 1 z values"))
        )

        var chunk = Wearable_V1_RecordedAccelerometerChunk()
        chunk.timestamp = [1, 2, 3]
        chunk.startDate = [1e9, 1e9 + 1]
        chunk.x = [0, 0, 0]
        chunk.y = [0, 0, 0]
        chunk.z = [0, 0, 0]
        #expect(
            ProtobufFrameDecoder.decodeRecordedAccelerometerChunk(ProtobufFrameEncoder.serialized(chunk))
                == .failure(PayloadProblem(.sampleCount, field: "samples", message: "3 timestamps but 2 start_date values"))
        )
        chunk.startDate.append(1e9 + 2)
        chunk.y.append(0)
        #expect(
            ProtobufFrameDecoder.decodeRecordedAccelerometerChunk(ProtobufFrameEncoder.serialized(chunk))
                == .failure(PayloadProblem(.sampleCount, field: "samples", message: "3 timestamps but 4 y values"))
        )
    }

    @Test("a device-motion sample without a required part is rejected by name")
    func missingParts() {
        let complete = Self.deviceMotionMessage()
        let cases: [(String, (inout Wearable_V1_DeviceMotion) -> Void)] = [
            ("attitude", { $0.clearAttitude() }),
            ("rotationRate", { $0.clearRotationRate() }),
            ("gravity", { $0.clearGravity() }),
            ("userAcceleration", { $0.clearUserAcceleration() }),
        ]
        for (name, clear) in cases {
            var broken = complete
            clear(&broken)
            var batch = Wearable_V1_DeviceMotionBatch()
            batch.samples = [complete, complete, broken]
            #expect(
                ProtobufFrameDecoder.decodeDeviceMotionBatch(ProtobufFrameEncoder.serialized(batch))
                    == .failure(PayloadProblem(.missingField, field: "samples[2].\(name)", message: "missing"))
            )
        }
        // Sensor location, magnetic field and heading may be absent; an all-zero quaternion is
        // present (validation, not decoding, judges it).
        var minimal = Wearable_V1_DeviceMotion()
        minimal.attitude = Wearable_V1_Quaternion()
        minimal.rotationRate = Wearable_V1_Vector3()
        minimal.gravity = Wearable_V1_Vector3()
        minimal.userAcceleration = Wearable_V1_Vector3()
        var batch = Wearable_V1_DeviceMotionBatch()
        batch.samples = [minimal]
        let decoded = try? ProtobufFrameDecoder.decodeDeviceMotionBatch(ProtobufFrameEncoder.serialized(batch)).get()
        #expect(
            decoded
                == DeviceMotionBatch(samples: [
                    DeviceMotion(
                        timestamp: 0,
                        attitude: Quaternion(x: 0, y: 0, z: 0, w: 0),
                        rotationRate: .zero,
                        gravity: .zero,
                        userAcceleration: .zero
                    )
                ])
        )
    }

    @Test("NaN and infinities are rejected where they are")
    func nonFiniteNumbers() {
        var accelerometer = ProtobufFixtures.accelerometerBatch(count: 10, sequence: nil)
        accelerometer.samples[3].acceleration.y = .nan
        #expect(
            ProtobufFrameDecoder.decodeAccelerometerBatch(ProtobufFrameEncoder.encode(accelerometer))
                == .failure(PayloadProblem(.notFinite, field: "samples[3].acceleration.y", message: "not a finite number (nan)"))
        )
        accelerometer = ProtobufFixtures.accelerometerBatch(count: 10, sequence: nil)
        accelerometer.samples[9].timestamp = -.infinity
        #expect(
            ProtobufFrameDecoder.decodeAccelerometerBatch(ProtobufFrameEncoder.encode(accelerometer))
                == .failure(PayloadProblem(.notFinite, field: "samples[9].timestamp", message: "not a finite number (-inf)"))
        )
        accelerometer = ProtobufFixtures.accelerometerBatch(count: 10, sequence: nil)
        accelerometer.samples[0].acceleration.x = 1e39  // beyond float32: the encoder writes +inf
        #expect(
            ProtobufFrameDecoder.decodeAccelerometerBatch(ProtobufFrameEncoder.encode(accelerometer))
                == .failure(PayloadProblem(.notFinite, field: "samples[0].acceleration.x", message: "not a finite number (inf)"))
        )

        let motion = ProtobufFixtures.deviceMotionBatch(for: .motion)
        let edits: [(String, (inout DeviceMotion) -> Void)] = [
            ("samples[1].timestamp", { $0.timestamp = .nan }),
            ("samples[1].attitude.w", { $0.attitude.w = .infinity }),
            ("samples[1].rotationRate.z", { $0.rotationRate.z = .nan }),
            ("samples[1].gravity.x", { $0.gravity.x = -.infinity }),
            ("samples[1].userAcceleration.y", { $0.userAcceleration.y = .nan }),
            ("samples[1].magneticField.z", { $0.magneticField = MagneticField(field: Vector3(x: 0, y: 0, z: .nan), accuracy: .high) }),
            ("samples[1].heading", { $0.heading = .nan }),
        ]
        for (path, edit) in edits {
            var batch = motion
            edit(&batch.samples[1])
            let result = ProtobufFrameDecoder.decodeDeviceMotionBatch(ProtobufFrameEncoder.encode(batch))
            #expect(result.problem?.reason == .notFinite)
            #expect(result.problem?.field == path, "\(result)")
            #expect(result.problem?.message.hasPrefix("not a finite number (") == true, "\(result)")
        }

        var chunk = ProtobufFixtures.recordedChunk(count: 5, identifier: 1, sequence: nil)
        chunk.samples[4].startDate = .infinity
        #expect(
            ProtobufFrameDecoder.decodeRecordedAccelerometerChunk(ProtobufFrameEncoder.encode(chunk))
                == .failure(PayloadProblem(.notFinite, field: "samples[4].startDate", message: "not a finite number (inf)"))
        )
    }

    @Test("a negative heading is Core Motion's invalid heading: nil, as in JSON")
    func negativeHeading() throws {
        var batch = ProtobufFixtures.deviceMotionBatch(for: .motion)
        batch.samples[0].heading = -1
        batch.samples[1].heading = 0
        let decoded = try ProtobufFrameDecoder.decodeDeviceMotionBatch(ProtobufFrameEncoder.encode(batch)).get()
        #expect(decoded.samples[0].heading == nil)
        #expect(decoded.samples[1].heading == 0)
        let json = try FrameDecoder.decode(FrameEncoder.encode(batch), encoding: .json, stream: .motion).get()
        #expect(json.sequence == decoded.sequence)
        if case .motion(let fromJSON) = json {
            #expect(fromJSON.samples[0].heading == nil)
        } else {
            Issue.record("JSON decoded as \(json)")
        }
    }

    @Test("enum values outside the schema are rejected with their raw value")
    func unknownEnumValues() {
        var sample = Self.deviceMotionMessage()
        sample.sensorLocation = .UNRECOGNIZED(7)
        var batch = Wearable_V1_DeviceMotionBatch()
        batch.samples = [sample]
        #expect(
            ProtobufFrameDecoder.decodeDeviceMotionBatch(ProtobufFrameEncoder.serialized(batch)).problem?.detail
                == "samples[0].sensorLocation: unknown value 7; expected one of default (0), headphoneLeft (1), headphoneRight (2)"
        )
        #expect(ProtobufFrameDecoder.decodeDeviceMotionBatch(ProtobufFrameEncoder.serialized(batch)).problem?.reason == .unknownValue)
        sample = Self.deviceMotionMessage()
        var field = Wearable_V1_MagneticField()
        field.accuracy = .UNRECOGNIZED(-2)
        sample.magneticField = field
        batch.samples = [sample, sample]
        let problem = ProtobufFrameDecoder.decodeDeviceMotionBatch(ProtobufFrameEncoder.serialized(batch)).problem
        #expect(problem?.reason == .unknownValue)
        #expect(
            problem?.detail
                == "samples[0].magneticField.accuracy: unknown value -2; expected one of uncalibrated (-1), low (0), medium (1), high (2)"
        )
    }

    @Test("bytes that are not a message of the stream's type are malformed")
    func malformedBytes() throws {
        let valid = ProtobufFrameEncoder.encode(ProtobufFixtures.accelerometerBatch(count: 800, sequence: 5))
        #expect(
            ProtobufFrameDecoder.decodeAccelerometerBatch(Array(valid.dropLast()))
                == .failure(PayloadProblem(.wrongType, message: "not a wearable.v1.AccelerometerBatch message: the bytes end inside a field"))
        )
        // Field 0 does not exist in any protobuf message.
        #expect(ProtobufFrameDecoder.decodeAccelerometerBatch([0x00, 0x01]).problem?.reason == .wrongType)
        // Wire type 7 does not exist.
        #expect(ProtobufFrameDecoder.decodeDeviceMotionBatch([0x0F]).problem?.reason == .wrongType)
        // A varint that never ends.
        #expect(ProtobufFrameDecoder.decodeRecordedAccelerometerChunk([0x10] + Array(repeating: 0xFF, count: 11)).problem?.reason == .wrongType)
        // JSON sent with the binary content type.
        let json = FrameEncoder.encode(ProtobufFixtures.accelerometerBatch(count: 2, sequence: 1))
        let problem = try #require(ProtobufFrameDecoder.decode(json, stream: .batchedAccelerometer).problem)
        #expect(problem.reason == .wrongType)
        #expect(problem.detail.hasPrefix("not a wearable.v1.AccelerometerBatch message: "))
        // A packed double column whose length is not a multiple of 8.
        #expect(ProtobufFrameDecoder.decodeAccelerometerBatch([0x12, 0x03, 1, 2, 3]).problem?.reason == .wrongType)
    }

    @Test("every truncation of a valid frame is a problem or a smaller valid frame, never a crash")
    func truncations() {
        let frames: [(InboundStream, [UInt8])] = [
            (.batchedAccelerometer, ProtobufFrameEncoder.encode(ProtobufFixtures.accelerometerBatch(count: 40, sequence: 1))),
            (.motion, ProtobufFrameEncoder.encode(ProtobufFixtures.deviceMotionBatch(for: .motion))),
            (.recorderAccelerometer, ProtobufFrameEncoder.encode(ProtobufFixtures.recordedChunk(count: 20, identifier: 3, sequence: 4))),
        ]
        for (stream, bytes) in frames {
            var problems = 0
            for length in 0..<bytes.count {
                if case .failure(let problem) = ProtobufFrameDecoder.decode(Array(bytes[..<length]), stream: stream) {
                    problems += 1
                    #expect(!problem.detail.isEmpty)
                    #expect([.wrongType, .sampleCount, .missingField].contains(problem.reason), "\(problem)")
                }
            }
            #expect(problems > bytes.count / 2, "most truncations of \(stream.rawValue) cut a field")
        }
    }

    @Test("thousands of mutated and random buffers yield problems or frames, never a crash")
    func fuzz() {
        var random = SplitMix64(seed: 0x5EED_0F_B1_4A_27)
        // Small frames mutate into many shapes; the full 800-sample batch checks big packed columns.
        let bases: [(bytes: [UInt8], mutations: Int)] = [
            (ProtobufFrameEncoder.encode(ProtobufFixtures.accelerometerBatch(count: 24, sequence: 11)), 1_000),
            (ProtobufFrameEncoder.encode(ProtobufFixtures.deviceMotionBatch(for: .motion)), 1_000),
            (ProtobufFrameEncoder.encode(ProtobufFixtures.deviceMotionBatch(for: .headphoneMotion)), 1_000),
            (ProtobufFrameEncoder.encode(ProtobufFixtures.recordedChunk(count: 12, identifier: 99, sequence: 1)), 1_000),
            (ProtobufFrameEncoder.encode(ProtobufFixtures.accelerometerBatch(count: 800, sequence: 1)), 100),
        ]
        var outcomes: [String: Int] = [:]
        for base in bases {
            for _ in 0..<base.mutations {
                let mutated = Self.mutate(base.bytes, using: &random)
                // Every stream reads every buffer: message types confused with one another too.
                for target in Self.highRateStreams {
                    outcomes[Self.check(ProtobufFrameDecoder.decode(mutated, stream: target)), default: 0] += 1
                }
            }
        }
        for _ in 0..<1_000 {
            let length = Int.random(in: 0...200, using: &random)
            let noise = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            for target in Self.highRateStreams {
                outcomes[Self.check(ProtobufFrameDecoder.decode(noise, stream: target)), default: 0] += 1
            }
        }
        #expect(outcomes.values.reduce(0, +) == 5_100 * Self.highRateStreams.count)
        #expect(outcomes["wrongType", default: 0] > 1_000, "\(outcomes)")
        #expect(outcomes["frame", default: 0] > 100, "some mutations stay valid: \(outcomes)")
    }

    @Test("deeply nested unknown groups and huge declared lengths do not exhaust the stack or memory")
    func hostileStructure() {
        // 100,000 nested start-group tags of an unknown field 15.
        let groups = [UInt8](repeating: 0x7B, count: 100_000)
        for stream in Self.highRateStreams {
            #expect(ProtobufFrameDecoder.decode(groups, stream: stream).problem?.reason == .wrongType)
        }
        // Field 2 (length-delimited) inside field 2, 10,000 levels deep: samples → attitude → the
        // quaternion's float y with the wrong wire type, which is skipped as an unknown blob
        // without recursing further. The sample then lacks its other parts.
        var nested: [UInt8] = []
        for _ in 0..<10_000 { nested = [0x12] + ProtobufWireBytes.varint(UInt64(nested.count)) + nested }
        #expect(
            ProtobufFrameDecoder.decodeDeviceMotionBatch(nested).problem
                == PayloadProblem(.missingField, field: "samples[0].rotationRate", message: "missing")
        )
        // A column that declares 2^62 bytes.
        let huge: [UInt8] = [0x12] + ProtobufWireBytes.varint(1 << 62) + [0, 0, 0, 0, 0, 0, 0, 0]
        #expect(ProtobufFrameDecoder.decodeAccelerometerBatch(huge).problem?.reason == .wrongType)
    }

    @Test("unknown fields are skipped, as unknown JSON fields are")
    func unknownFieldsSkipped() throws {
        let batch = ProtobufFixtures.accelerometerBatch(count: 8, sequence: 3)
        // Field 99 varint 1, field 100 length-delimited "hi", field 101 fixed32.
        let extra: [UInt8] = [0x98, 0x06, 0x01, 0xA2, 0x06, 0x02, 0x68, 0x69, 0xAD, 0x06, 1, 2, 3, 4]
        let decoded = try ProtobufFrameDecoder.decodeAccelerometerBatch(extra + ProtobufFrameEncoder.encode(batch) + extra).get()
        #expect(decoded == ProtobufFixtures.float32Rounded(batch))
    }

    @Test("columns split over several packed runs, or sent unpacked, still decode")
    func columnEncodings() throws {
        // timestamp [1, 2] as two unpacked fixed64 fields; x, y, z packed; x in two runs.
        var bytes: [UInt8] = [0x11] + ProtobufWireBytes.littleEndian(1.0) + [0x11] + ProtobufWireBytes.littleEndian(2.0)
        bytes += [0x1A, 0x04] + ProtobufWireBytes.littleEndian(Float(0.5)) + [0x1A, 0x04] + ProtobufWireBytes.littleEndian(Float(-0.5))
        bytes += [0x22, 0x08] + ProtobufWireBytes.littleEndian(Float(1)) + ProtobufWireBytes.littleEndian(Float(2))
        bytes += [0x2A, 0x08] + ProtobufWireBytes.littleEndian(Float(3)) + ProtobufWireBytes.littleEndian(Float(4))
        let decoded = try ProtobufFrameDecoder.decodeAccelerometerBatch(bytes).get()
        #expect(
            decoded
                == AccelerometerBatch(samples: [
                    AccelerometerSample(timestamp: 1, acceleration: Vector3(x: 0.5, y: 1, z: 3)),
                    AccelerometerSample(timestamp: 2, acceleration: Vector3(x: -0.5, y: 2, z: 4)),
                ])
        )
    }

    @Test("streams that are not high-rate have no binary encoding")
    func unsupportedStreams() {
        let payload = ProtobufFrameEncoder.encode(ProtobufFixtures.accelerometerBatch(count: 2, sequence: nil))
        for stream in InboundStream.allCases {
            let result = ProtobufFrameDecoder.decode(payload, stream: stream)
            if stream.isHighRate {
                #expect(result.problem?.reason != .unsupportedEncoding, "\(stream.rawValue)")
            } else {
                #expect(
                    result.problem
                        == PayloadProblem(
                            .unsupportedEncoding,
                            message: "binary encoding is only defined for high-rate streams; '\(stream.rawValue)' takes JSON"
                        )
                )
            }
        }
    }

    // MARK: Helpers

    private static func deviceMotionMessage() -> Wearable_V1_DeviceMotion {
        var sample = Wearable_V1_DeviceMotion()
        sample.timestamp = 5
        var attitude = Wearable_V1_Quaternion()
        attitude.w = 1
        sample.attitude = attitude
        var gravity = Wearable_V1_Vector3()
        gravity.z = -1
        sample.rotationRate = Wearable_V1_Vector3()
        sample.gravity = gravity
        sample.userAcceleration = Wearable_V1_Vector3()
        return sample
    }

    /// One to four random edits: flip bits, overwrite, insert, delete, truncate or duplicate a range.
    private static func mutate(_ base: [UInt8], using random: inout SplitMix64) -> [UInt8] {
        var bytes = base
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<6, using: &random) {
            case 0 where !bytes.isEmpty: bytes[position] ^= 1 << UInt8.random(in: 0..<8, using: &random)
            case 1 where !bytes.isEmpty: bytes[position] = UInt8.random(in: 0...255, using: &random)
            case 2: bytes.insert(UInt8.random(in: 0...255, using: &random), at: position)
            case 3 where !bytes.isEmpty: bytes.remove(at: position)
            case 4: bytes.removeLast(Int.random(in: 0...bytes.count, using: &random))
            default:
                let end = min(bytes.count, position + Int.random(in: 1...16, using: &random))
                bytes.insert(contentsOf: bytes[position..<end], at: position)
            }
        }
        return bytes
    }

    /// Checks one outcome and names it: a frame, or the problem's reason.
    private static func check(_ result: Result<DecodedFrame, PayloadProblem>) -> String {
        switch result {
        case .success(let frame):
            #expect(frame.stream.isHighRate)
            return "frame"
        case .failure(let problem):
            #expect(!problem.detail.isEmpty)
            #expect([.wrongType, .sampleCount, .missingField, .notFinite, .unknownValue].contains(problem.reason), "\(problem)")
            return problem.reason.rawValue
        }
    }
}

extension Result where Failure == PayloadProblem {
    /// The problem, or nil on success.
    fileprivate var problem: PayloadProblem? {
        if case .failure(let problem) = self { problem } else { nil }
    }
}
