import Testing

@testable import TelemetryCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Models → binary → models for every high-rate stream, the schema's frozen wire bytes, and size.
@Suite struct ProtobufRoundTripTests {
    @Test("batched/accelerometer: 800 samples round trip within float32 precision")
    func accelerometerBatch() throws {
        let original = ProtobufFixtures.accelerometerBatch(count: 800, sequence: 42)
        let decoded = try ProtobufFrameDecoder.decodeAccelerometerBatch(ProtobufFrameEncoder.encode(original)).get()
        #expect(decoded == ProtobufFixtures.float32Rounded(original))
        #expect(decoded.sequence == 42)
        try #require(decoded.samples.count == original.samples.count)
        for (got, want) in zip(decoded.samples, original.samples) {
            #expect(got.timestamp == want.timestamp, "timestamps travel as double")
            expectClose(got.acceleration, want.acceleration)
        }
    }

    @Test(
        "device-motion streams round trip within float32 precision",
        arguments: [InboundStream.batchedDeviceMotion, .motion, .headphoneMotion]
    )
    func deviceMotionBatch(stream: InboundStream) throws {
        let original = ProtobufFixtures.deviceMotionBatch(for: stream)
        let frame = try ProtobufFrameDecoder.decode(ProtobufFrameEncoder.encode(original), stream: stream).get()
        #expect(frame.stream == stream)
        let decoded: DeviceMotionBatch
        switch frame {
        case .batchedDeviceMotion(let batch), .motion(let batch), .headphoneMotion(let batch): decoded = batch
        default:
            Issue.record("\(stream.rawValue) decoded as \(frame)")
            return
        }
        #expect(decoded == ProtobufFixtures.float32Rounded(original))
        #expect(decoded.sequence == original.sequence)
        try #require(decoded.samples.count == original.samples.count)
        for (got, want) in zip(decoded.samples, original.samples) {
            #expect(got.timestamp == want.timestamp)
            expectClose(got.attitude, want.attitude)
            expectClose(got.rotationRate, want.rotationRate)
            expectClose(got.gravity, want.gravity)
            expectClose(got.userAcceleration, want.userAcceleration)
            #expect(got.sensorLocation == want.sensorLocation)
            #expect(got.magneticField?.accuracy == want.magneticField?.accuracy)
            #expect((got.magneticField == nil) == (want.magneticField == nil))
            if let gotField = got.magneticField, let wantField = want.magneticField {
                expectClose(gotField.field, wantField.field)
            }
            #expect((got.heading == nil) == (want.heading == nil))
            if let gotHeading = got.heading, let wantHeading = want.heading {
                #expect(isFloat32Close(gotHeading, wantHeading))
            }
        }
    }

    @Test("recorder/accelerometer: a 50 Hz chunk round trips, times and identifier exactly")
    func recordedChunk() throws {
        let original = ProtobufFixtures.recordedChunk(count: 250, identifier: UInt64.max - 5, sequence: 7)
        let frame = try ProtobufFrameDecoder.decode(ProtobufFrameEncoder.encode(original), stream: .recorderAccelerometer).get()
        guard case .recorderAccelerometer(let decoded) = frame else {
            Issue.record("decoded as \(frame)")
            return
        }
        #expect(decoded == ProtobufFixtures.float32Rounded(original))
        #expect(decoded.identifier == UInt64.max - 5)
        try #require(decoded.samples.count == original.samples.count)
        for (got, want) in zip(decoded.samples, original.samples) {
            #expect(got.timestamp == want.timestamp)
            #expect(got.startDate == want.startDate, "epoch dates travel as double")
            expectClose(got.acceleration, want.acceleration)
        }
    }

    @Test("values that are exactly float32 round trip bit for bit; so do empty frames")
    func exactValues() throws {
        let exact = ProtobufFixtures.float32Rounded(ProtobufFixtures.deviceMotionBatch(for: .batchedDeviceMotion))
        #expect(try ProtobufFrameDecoder.decodeDeviceMotionBatch(ProtobufFrameEncoder.encode(exact)).get() == exact)

        let empty = AccelerometerBatch(samples: [])
        #expect(ProtobufFrameEncoder.encode(empty).isEmpty)
        #expect(try ProtobufFrameDecoder.decodeAccelerometerBatch([]).get() == empty)
        #expect(try ProtobufFrameDecoder.decodeDeviceMotionBatch([]).get() == DeviceMotionBatch(samples: []))
        #expect(
            try ProtobufFrameDecoder.decodeRecordedAccelerometerChunk([]).get()
                == RecordedAccelerometerChunk(identifier: 0, samples: [])
        )
    }

    @Test("sequence keeps its presence: 0 is not nil")
    func sequencePresence() throws {
        for sequence in [nil, 0, 1, UInt64.max] as [UInt64?] {
            let batch = AccelerometerBatch(samples: [], sequence: sequence)
            #expect(try ProtobufFrameDecoder.decodeAccelerometerBatch(ProtobufFrameEncoder.encode(batch)).get().sequence == sequence)
            let motion = DeviceMotionBatch(samples: [], sequence: sequence)
            #expect(try ProtobufFrameDecoder.decodeDeviceMotionBatch(ProtobufFrameEncoder.encode(motion)).get().sequence == sequence)
            let chunk = RecordedAccelerometerChunk(identifier: 1, samples: [], sequence: sequence)
            #expect(
                try ProtobufFrameDecoder.decodeRecordedAccelerometerChunk(ProtobufFrameEncoder.encode(chunk)).get().sequence == sequence
            )
        }
    }

    @Test("a DecodedFrame re-encodes to the bytes it came from; low-rate frames have no binary form")
    func decodedFrameEncoding() throws {
        let payloads: [(InboundStream, [UInt8])] = [
            (.batchedAccelerometer, ProtobufFrameEncoder.encode(ProtobufFixtures.accelerometerBatch(count: 3, sequence: 1))),
            (.batchedDeviceMotion, ProtobufFrameEncoder.encode(ProtobufFixtures.deviceMotionBatch(for: .motion))),
            (.motion, ProtobufFrameEncoder.encode(ProtobufFixtures.deviceMotionBatch(for: .motion))),
            (.headphoneMotion, ProtobufFrameEncoder.encode(ProtobufFixtures.deviceMotionBatch(for: .headphoneMotion))),
            (.recorderAccelerometer, ProtobufFrameEncoder.encode(ProtobufFixtures.recordedChunk(count: 3, identifier: 2, sequence: nil))),
        ]
        for (stream, bytes) in payloads {
            let frame = try ProtobufFrameDecoder.decode(bytes, stream: stream).get()
            #expect(ProtobufFrameEncoder.encode(frame) == bytes, "\(stream.rawValue)")
        }
        let status = DecodedFrame.status(DeviceStatus(state: .online), sequence: 1)
        #expect(ProtobufFrameEncoder.encode(status) == nil)
    }

    @Test(
        "JSON and binary decode to the same frame (for values float32 can hold)",
        arguments: InboundStream.allCases.filter(\.isHighRate)
    )
    func sameModelsAsJSON(stream: InboundStream) throws {
        let frame: DecodedFrame
        switch stream {
        case .batchedAccelerometer:
            frame = .batchedAccelerometer(ProtobufFixtures.float32Rounded(ProtobufFixtures.accelerometerBatch(count: 800, sequence: 8)))
        case .batchedDeviceMotion:
            frame = .batchedDeviceMotion(ProtobufFixtures.float32Rounded(ProtobufFixtures.deviceMotionBatch(for: stream)))
        case .motion:
            frame = .motion(ProtobufFixtures.float32Rounded(ProtobufFixtures.deviceMotionBatch(for: stream)))
        case .headphoneMotion:
            frame = .headphoneMotion(ProtobufFixtures.float32Rounded(ProtobufFixtures.deviceMotionBatch(for: stream)))
        default:
            frame = .recorderAccelerometer(
                ProtobufFixtures.float32Rounded(ProtobufFixtures.recordedChunk(count: 50, identifier: 12, sequence: 3))
            )
        }
        let json: [UInt8]
        switch frame {
        case .batchedAccelerometer(let batch): json = FrameEncoder.encode(batch)
        case .batchedDeviceMotion(let batch), .motion(let batch), .headphoneMotion(let batch): json = FrameEncoder.encode(batch)
        case .recorderAccelerometer(let chunk): json = FrameEncoder.encode(chunk)
        default: throw ProtobufFixtures.Unexpected(description: "\(frame)")
        }
        let binary = try #require(ProtobufFrameEncoder.encode(frame))
        let fromJSON = try FrameDecoder.decode(json, encoding: .json, stream: stream).get()
        let fromBinary = try ProtobufFrameDecoder.decode(binary, stream: stream).get()
        #expect(fromBinary == frame)
        #expect(fromJSON == fromBinary)
    }

    // MARK: Frozen wire format

    // The expected bytes come from protoc itself, not from swift-protobuf:
    //   protoc --encode=wearable.v1.<Message> wearable/v1/telemetry.proto < text | xxd -p
    // (run in proto/). If one of these fails, a field was renumbered or retyped: that breaks
    // every deployed sender, see the versioning rules in the schema.

    @Test("AccelerometerBatch bytes are those protoc writes")
    func accelerometerWireBytes() throws {
        // sequence: 3  timestamp: [1.0, 1.00125]  x: [0.5, -0.25]  y: [-1, 0]  z: [2, 1]
        let protoc = try ProtobufFixtures.hexBytes(
            "08031210000000000000f03f85eb51b81e05f03f1a080000003f000080be2208000080bf000000002a08000000400000803f"
        )
        let batch = AccelerometerBatch(
            samples: [
                AccelerometerSample(timestamp: 1.0, acceleration: Vector3(x: 0.5, y: -1, z: 2)),
                AccelerometerSample(timestamp: 1.00125, acceleration: Vector3(x: -0.25, y: 0, z: 1)),
            ],
            sequence: 3
        )
        #expect(ProtobufFrameEncoder.encode(batch) == protoc)
        #expect(try ProtobufFrameDecoder.decodeAccelerometerBatch(protoc).get() == batch)
    }

    @Test("DeviceMotionBatch bytes are those protoc writes, enums with Core Motion raw values")
    func deviceMotionWireBytes() throws {
        // sequence: 0  samples { timestamp: 12.5  attitude { z: 0.5 w: -0.75 }  rotation_rate { x: 1 z: -2 }
        //   gravity { z: -1 }  user_acceleration { x: 0.125 }  sensor_location: SENSOR_LOCATION_HEADPHONE_RIGHT
        //   magnetic_field { x: 20 y: -4 z: 40 accuracy: CALIBRATION_ACCURACY_UNCALIBRATED }  heading: 90 }
        let protoc = try ProtobufFixtures.hexBytes(
            "08001252090000000000002940120a1d0000003f25000040bf1a0a0d0000803f1d000000c022051d000080bf2a050d0000003e"
                + "30023a1a0d0000a04115000080c01d0000204220ffffffffffffffffff01450000b442"
        )
        let batch = DeviceMotionBatch(
            samples: [
                DeviceMotion(
                    timestamp: 12.5,
                    attitude: Quaternion(x: 0, y: 0, z: 0.5, w: -0.75),
                    rotationRate: Vector3(x: 1, y: 0, z: -2),
                    gravity: Vector3(x: 0, y: 0, z: -1),
                    userAcceleration: Vector3(x: 0.125, y: 0, z: 0),
                    sensorLocation: .headphoneRight,
                    magneticField: MagneticField(field: Vector3(x: 20, y: -4, z: 40), accuracy: .uncalibrated),
                    heading: 90
                )
            ],
            sequence: 0
        )
        #expect(ProtobufFrameEncoder.encode(batch) == protoc)
        #expect(try ProtobufFrameDecoder.decodeDeviceMotionBatch(protoc).get() == batch)
    }

    @Test("RecordedAccelerometerChunk bytes are those protoc writes")
    func recordedChunkWireBytes() throws {
        // identifier: 300  timestamp: [100]  start_date: [1700000000.5]  x: [0]  y: [1]  z: [-1]
        let protoc = try ProtobufFixtures.hexBytes(
            "10ac021a080000000000005940220800002040fc54d9412a040000000032040000803f3a04000080bf"
        )
        let chunk = RecordedAccelerometerChunk(
            identifier: 300,
            samples: [RecordedAccelerometerSample(timestamp: 100, startDate: 1_700_000_000.5, acceleration: Vector3(x: 0, y: 1, z: -1))]
        )
        #expect(ProtobufFrameEncoder.encode(chunk) == protoc)
        #expect(try ProtobufFrameDecoder.decodeRecordedAccelerometerChunk(protoc).get() == chunk)
    }

    @Test("sensor location and calibration accuracy use Core Motion's raw values")
    func enumRawValues() {
        #expect(Wearable_V1_SensorLocation.allCases.count == SensorLocation.allCases.count)
        for location in SensorLocation.allCases {
            // SwiftProtobuf's == compares raw values, so .UNRECOGNIZED(1) == .headphoneLeft: match the case.
            let wire = Wearable_V1_SensorLocation(rawValue: location.rawValue)
            #expect(wire.map(Self.isRecognized) == true, "\(location) has no schema value")
        }
        #expect(Wearable_V1_SensorLocation.default.rawValue == SensorLocation.default.rawValue)
        #expect(Wearable_V1_SensorLocation.headphoneLeft.rawValue == 1)
        #expect(Wearable_V1_SensorLocation.headphoneRight.rawValue == 2)

        #expect(Wearable_V1_CalibrationAccuracy.allCases.count == CalibrationAccuracy.allCases.count)
        for accuracy in CalibrationAccuracy.allCases {
            let wire = Wearable_V1_CalibrationAccuracy(rawValue: Int(accuracy.rawValue))
            #expect(wire.map(Self.isRecognized) == true, "\(accuracy) has no schema value")
        }
        #expect(Wearable_V1_CalibrationAccuracy.uncalibrated.rawValue == -1)
        #expect(Wearable_V1_CalibrationAccuracy.low.rawValue == 0)
        #expect(Wearable_V1_CalibrationAccuracy.medium.rawValue == 1)
        #expect(Wearable_V1_CalibrationAccuracy.high.rawValue == 2)

        for location in SensorLocation.allCases {
            for accuracy in CalibrationAccuracy.allCases {
                var sample = ProtobufFixtures.deviceMotionBatch(for: .motion).samples[0]
                sample.sensorLocation = location
                sample.magneticField = MagneticField(field: Vector3(x: 1, y: 2, z: 3), accuracy: accuracy)
                let decoded = ProtobufFrameDecoder.decodeDeviceMotionBatch(ProtobufFrameEncoder.encode(DeviceMotionBatch(samples: [sample])))
                let first = try? decoded.get().samples.first
                #expect(first?.sensorLocation == location)
                #expect(first?.magneticField?.accuracy == accuracy)
            }
        }
    }

    private static func isRecognized(_ location: Wearable_V1_SensorLocation) -> Bool {
        if case .UNRECOGNIZED = location { false } else { true }
    }

    private static func isRecognized(_ accuracy: Wearable_V1_CalibrationAccuracy) -> Bool {
        if case .UNRECOGNIZED = accuracy { false } else { true }
    }

    // MARK: Size

    @Test("binary is at least 3× smaller than the contract JSON")
    func size() {
        let accelerometer = ProtobufFixtures.accelerometerBatch(count: 800, sequence: 1_000)
        let accelerometerBinary = ProtobufFrameEncoder.encode(accelerometer).count
        #expect(accelerometerBinary * 3 <= FrameEncoder.encode(accelerometer).count)
        #expect(accelerometerBinary <= 800 * 20 + 32, "packed columns: 20 bytes per sample plus a few headers")

        let deviceMotion = ProtobufFixtures.deviceMotionBatch(for: .batchedDeviceMotion)
        #expect(ProtobufFrameEncoder.encode(deviceMotion).count * 3 <= FrameEncoder.encode(deviceMotion).count)

        let chunk = ProtobufFixtures.recordedChunk(count: 50, identifier: 9, sequence: 2)
        #expect(ProtobufFrameEncoder.encode(chunk).count * 3 <= FrameEncoder.encode(chunk).count)
    }
}

// MARK: - Fixtures and tolerance

/// Deterministic models for the binary tests, with full-precision doubles that float32 must round.
enum ProtobufFixtures {
    /// `count` samples at 800 Hz from 1,234.5 s after boot, a wobbling ~1 g vector.
    static func accelerometerBatch(count: Int, sequence: UInt64?) -> AccelerometerBatch {
        let samples = (0..<count).map { index in
            let time = 1_234.5 + Double(index) / 800
            return AccelerometerSample(
                timestamp: time,
                acceleration: Vector3(x: 0.1 * sin(time * 7.3), y: -0.98 + 0.013 * cos(time * 3.1), z: 0.2 * sin(time * 1.7) + 1e-9)
            )
        }
        return AccelerometerBatch(samples: samples, sequence: sequence)
    }

    /// A batch for a device-motion stream: 200 samples for `batched/device-motion`, 4 for `motion`,
    /// 3 for `headphone/motion`; mixed sensor locations, magnetic fields (some uncalibrated, some
    /// absent) and headings (some absent).
    static func deviceMotionBatch(for stream: InboundStream) -> DeviceMotionBatch {
        let count: Int
        let sequence: UInt64?
        switch stream {
        case .batchedDeviceMotion: (count, sequence) = (200, 0)
        case .motion: (count, sequence) = (4, nil)
        default: (count, sequence) = (3, 9_007_199_254_740_993)
        }
        let samples = (0..<count).map { index in
            let time = 86_400.123456789 + Double(index) / 200
            let attitude = Quaternion(axis: Vector3(x: 0.3, y: -0.5, z: 0.81), angle: 0.4 + Double(index) * 0.013)
            let gravity = attitude.conjugate.rotate(Vector3(x: 0, y: 0, z: -1))
            let headphones = stream == .headphoneMotion
            let accuracy = CalibrationAccuracy.allCases[index % CalibrationAccuracy.allCases.count]
            return DeviceMotion(
                timestamp: time,
                attitude: attitude,
                rotationRate: Vector3(x: 2.1 * sin(time), y: -0.0004 * Double(index), z: 11.7 * cos(time)),
                gravity: gravity,
                userAcceleration: Vector3(x: 0.31 * sin(time * 5), y: 1e-7, z: -0.07 * Double(index % 5)),
                sensorLocation: headphones ? (index == 0 ? .headphoneLeft : .headphoneRight) : .default,
                magneticField: headphones || index % 7 == 3
                    ? nil : MagneticField(field: Vector3(x: 21.123456789, y: -3.3 * Double(index), z: 43.0000001), accuracy: accuracy),
                heading: headphones || index % 5 == 2 ? nil : 359.999 - Double(index) * 1.7
            )
        }
        return DeviceMotionBatch(samples: samples, sequence: sequence)
    }

    /// `count` samples at 50 Hz, boot-relative and epoch times.
    static func recordedChunk(count: Int, identifier: UInt64, sequence: UInt64?) -> RecordedAccelerometerChunk {
        let samples = (0..<count).map { index in
            let time = 77.7 + Double(index) / 50
            return RecordedAccelerometerSample(
                timestamp: time,
                startDate: 1_731_000_000.123456 + Double(index) / 50,
                acceleration: Vector3(x: sin(time), y: cos(time) / 3, z: -1.000000123)
            )
        }
        return RecordedAccelerometerChunk(identifier: identifier, samples: samples, sequence: sequence)
    }

    /// The model the binary form carries: sensor values rounded to float32, times kept.
    static func float32Rounded(_ batch: AccelerometerBatch) -> AccelerometerBatch {
        AccelerometerBatch(
            samples: batch.samples.map { AccelerometerSample(timestamp: $0.timestamp, acceleration: rounded($0.acceleration)) },
            sequence: batch.sequence
        )
    }

    /// The model the binary form carries: sensor values rounded to float32, times kept.
    static func float32Rounded(_ batch: DeviceMotionBatch) -> DeviceMotionBatch {
        let samples = batch.samples.map { sample in
            DeviceMotion(
                timestamp: sample.timestamp,
                attitude: Quaternion(
                    x: rounded(sample.attitude.x),
                    y: rounded(sample.attitude.y),
                    z: rounded(sample.attitude.z),
                    w: rounded(sample.attitude.w)
                ),
                rotationRate: rounded(sample.rotationRate),
                gravity: rounded(sample.gravity),
                userAcceleration: rounded(sample.userAcceleration),
                sensorLocation: sample.sensorLocation,
                magneticField: sample.magneticField.map { MagneticField(field: rounded($0.field), accuracy: $0.accuracy) },
                heading: sample.heading.map(rounded)
            )
        }
        return DeviceMotionBatch(samples: samples, sequence: batch.sequence)
    }

    /// The model the binary form carries: sensor values rounded to float32, times kept.
    static func float32Rounded(_ chunk: RecordedAccelerometerChunk) -> RecordedAccelerometerChunk {
        RecordedAccelerometerChunk(
            identifier: chunk.identifier,
            samples: chunk.samples.map {
                RecordedAccelerometerSample(timestamp: $0.timestamp, startDate: $0.startDate, acceleration: rounded($0.acceleration))
            },
            sequence: chunk.sequence
        )
    }

    /// A fixture that does not fit the test.
    struct Unexpected: Error, CustomStringConvertible {
        var description: String
    }

    /// Bytes from a hex string (`xxd -p`).
    static func hexBytes(_ hex: String) throws -> [UInt8] {
        let digits = Array(hex.utf8)
        try #require(digits.count % 2 == 0)
        return try stride(from: 0, to: digits.count, by: 2).map { index in
            try #require(UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16))
        }
    }

    private static func rounded(_ value: Double) -> Double { Double(Float(value)) }

    private static func rounded(_ vector: Vector3) -> Vector3 {
        Vector3(x: rounded(vector.x), y: rounded(vector.y), z: rounded(vector.z))
    }
}

/// Whether `decoded` is `original` within float32 precision: rounding to the nearest float32 moves
/// a normal value by at most 2⁻²⁴ of itself (the tolerance allows 2⁻²³), a tiny one by half the
/// smallest subnormal.
private func isFloat32Close(_ decoded: Double, _ original: Double) -> Bool {
    decoded == original
        || abs(decoded - original) <= max(abs(original) * Double(Float.ulpOfOne), Double(Float.leastNonzeroMagnitude))
}

private func expectClose(_ decoded: Vector3, _ original: Vector3, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(isFloat32Close(decoded.x, original.x), "x: \(decoded.x) vs \(original.x)", sourceLocation: sourceLocation)
    #expect(isFloat32Close(decoded.y, original.y), "y: \(decoded.y) vs \(original.y)", sourceLocation: sourceLocation)
    #expect(isFloat32Close(decoded.z, original.z), "z: \(decoded.z) vs \(original.z)", sourceLocation: sourceLocation)
}

private func expectClose(_ decoded: Quaternion, _ original: Quaternion, sourceLocation: SourceLocation = #_sourceLocation) {
    expectClose(decoded.vector, original.vector, sourceLocation: sourceLocation)
    #expect(isFloat32Close(decoded.w, original.w), "w: \(decoded.w) vs \(original.w)", sourceLocation: sourceLocation)
}
