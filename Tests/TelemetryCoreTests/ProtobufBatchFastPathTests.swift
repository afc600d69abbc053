import TelemetrySimulation
import Testing

@testable import TelemetryCore

/// The one-pass path of the protobuf batch decoders against the general path: it must take the
/// layouts encoders write (or the speed-up is not there), give the same models bit for bit, and
/// decline everything else, so that the general path reports it.
@Suite struct ProtobufBatchFastPathTests {
    @Test("an encoder's accelerometer batch takes the fast path and reads as the general path reads it")
    func accelerometer() throws {
        for count in [0, 1, 24, 800] {
            let bytes = ProtobufFrameEncoder.encode(ProtobufFixtures.accelerometerBatch(count: count, sequence: count == 1 ? nil : 42))
            let fast = try #require(ProtobufBatchFastPath.accelerometerBatch(bytes), "\(count) samples declined")
            let general = try ProtobufFrameDecoder.readAccelerometerBatch(bytes).get()
            #expect(fast.sequence == general.sequence)
            #expect(Self.bits(fast.samples.map(\.timestamp)) == Self.bits(general.samples.map(\.timestamp)))
            #expect(Self.bits(fast.samples.flatMap(\.acceleration.components)) == Self.bits(general.samples.flatMap(\.acceleration.components)))
        }
    }

    @Test("device-motion batches of every stream take the fast path and read as the general path reads them")
    func deviceMotion() throws {
        for stream in [InboundStream.batchedDeviceMotion, .motion, .headphoneMotion] {
            let batch = ProtobufFixtures.deviceMotionBatch(for: stream)
            let bytes = ProtobufFrameEncoder.encode(batch)
            let fast = try #require(ProtobufBatchFastPath.deviceMotionBatch(bytes), "\(stream) declined")
            let general = try ProtobufFrameDecoder.readDeviceMotionBatch(bytes).get()
            #expect(fast == general, "\(stream)")
            // The fixture covers what the fast path must handle itself.
            #expect(fast.samples.contains { $0.magneticField == nil } || stream == .batchedDeviceMotion)
            #expect(fast.samples.contains { $0.heading == nil })
        }
    }

    @Test("a device-motion sample in field order with no zero component is read from fixed places, and only such a sample")
    func fixedPlaces() throws {
        // 200 samples: some with a zero component (left out by the encoder, so the fields move;
        // the fixture's −0 is written), some with an uncalibrated magnetic field (a ten-byte
        // varint) or none.
        var batch = ProtobufFixtures.deviceMotionBatch(for: .batchedDeviceMotion)
        for index in stride(from: 4, to: batch.samples.count, by: 9) { batch.samples[index].gravity.x = 0 }
        for index in stride(from: 6, to: batch.samples.count, by: 13) { batch.samples[index].attitude.w = 0 }
        let bytes = ProtobufFrameEncoder.encode(batch)
        var heads = 0
        var magneticBodies = 0
        bytes.withUnsafeBytes { buffer in
            var reader = ProtobufWireReader(buffer, range: 0..<buffer.count)
            var index = 0
            while let field = try? reader.nextField() {
                guard field.number == 2, var sample = try? reader.nestedMessage() else {
                    try? reader.skip(field.wireType, number: field.number)
                    continue
                }
                let model = batch.samples[index]
                index += 1
                let parts = [model.attitude.x, model.attitude.y, model.attitude.z, model.attitude.w] + [model.rotationRate, model.gravity, model.userAcceleration].flatMap(\.components)
                let start = sample.position
                guard let head = sample.deviceMotionHead() else {
                    #expect(parts.contains { Float($0).bitPattern == 0 }, "sample \(index - 1) declined")
                    #expect(sample.position == start)
                    continue
                }
                heads += 1
                #expect(sample.position == start + ProtobufWireReader.DeviceMotionHead.size)
                #expect(head.timestamp.bitPattern == model.timestamp.bitPattern)
                let read = [head.attitude.x, head.attitude.y, head.attitude.z, head.attitude.w] + [head.rotationRate, head.gravity, head.userAcceleration].flatMap { [$0.x, $0.y, $0.z] }
                #expect(read == parts.map(Float.init), "sample \(index - 1)")
                // The magnetic field, if any, comes after the sensor location (left out: default).
                while let next = try? sample.nextField(), next.number != 7 {
                    try? sample.skip(next.wireType, number: next.number)
                }
                guard let magnetic = model.magneticField, var body = try? sample.nestedMessage() else { continue }
                guard let fixed = body.magneticFieldBody() else {
                    #expect(magnetic.accuracy == .uncalibrated, "sample \(index - 1): magnetic field declined")
                    continue
                }
                magneticBodies += 1
                #expect([fixed.field.x, fixed.field.y, fixed.field.z] == magnetic.field.components.map(Float.init))
                #expect(fixed.accuracy == magnetic.accuracy.rawValue)
            }
            #expect(index == batch.samples.count)
        }
        // Most samples take both (the fixture's zeros and uncalibrated fields are the exceptions).
        #expect(heads > 150 && heads < batch.samples.count)
        #expect(magneticBodies > 100)
    }

    @Test("the simulator's protobuf frames take the fast path")
    func simulatorFrames() throws {
        var generator = TrafficGenerator(
            seed: 11,
            devices: [.appleWatchSeries9(id: "watch-fast-1", activity: .tennis), .airPodsPro2(id: "buds-fast-1")],
            startDate: 1_700_000_000
        )
        var taken = 0
        for frame in generator.advance(to: 4) {
            let encoded = frame.encoded(as: .protobuf)
            guard encoded.encoding == .protobuf else { continue }
            switch InboundStream(rawValue: encoded.stream) {
            case .batchedAccelerometer?:
                #expect(ProtobufBatchFastPath.accelerometerBatch(encoded.payload) != nil, "\(encoded.stream)")
                taken += 1
            case .batchedDeviceMotion?, .motion?, .headphoneMotion?:
                #expect(ProtobufBatchFastPath.deviceMotionBatch(encoded.payload) != nil, "\(encoded.stream)")
                taken += 1
            default:
                break
            }
        }
        #expect(taken > 10)
    }

    @Test("layouts outside the fast path are declined and still decoded by the general path")
    func declinedLayouts() throws {
        let accelerometer = ProtobufFrameEncoder.encode(ProtobufFixtures.accelerometerBatch(count: 4, sequence: 1))
        // The x column again: protobuf concatenates repeated fields, so the general path reads
        // 8 x values and reports the columns' lengths.
        let repeatedColumn = accelerometer + Self.field(3, packedFloats: [1, 2, 3, 4])
        #expect(ProtobufBatchFastPath.accelerometerBatch(repeatedColumn) == nil)
        #expect(Self.reason(ProtobufFrameDecoder.decodeAccelerometerBatch(repeatedColumn)) == .sampleCount)
        // One x value unpacked (wire type 5) after a packed column of three.
        let unpacked = Self.accelerometerColumns(xPacked: [0.5, 0.25, 0.125], xUnpacked: 0.0625)
        #expect(ProtobufBatchFastPath.accelerometerBatch(unpacked) == nil)
        let mixed = try ProtobufFrameDecoder.decodeAccelerometerBatch(unpacked).get()
        #expect(mixed.samples.map(\.acceleration.x) == [0.5, 0.25, 0.125, 0.0625])
        // A NaN component: declined, and the general path names the sample.
        var withNaN = ProtobufFixtures.accelerometerBatch(count: 3, sequence: nil)
        withNaN.samples[2].acceleration.y = .nan
        let nanBytes = ProtobufFrameEncoder.encode(withNaN)
        #expect(ProtobufBatchFastPath.accelerometerBatch(nanBytes) == nil)
        if case .failure(let problem) = ProtobufFrameDecoder.decodeAccelerometerBatch(nanBytes) {
            #expect(problem.field == "samples[2].acceleration.y")
        } else {
            Issue.record("a NaN was accepted")
        }

        // Device motion: a sample's gravity sent twice is merged by protobuf (the general path),
        // so the fast path declines it.
        let motion = ProtobufFixtures.deviceMotionBatch(for: .motion)
        let bytes = ProtobufFrameEncoder.encode(motion)
        let merged = Self.appendingToFirstSample(bytes, Self.field(4, message: Self.field(3, float: 0.5)))
        #expect(ProtobufBatchFastPath.deviceMotionBatch(merged) == nil)
        let mergedBatch = try ProtobufFrameDecoder.decodeDeviceMotionBatch(merged).get()
        #expect(mergedBatch.samples[0].gravity.z == 0.5)
        #expect(Float(mergedBatch.samples[0].gravity.x) == Float(motion.samples[0].gravity.x))
        // A truncated frame: declined, reported as malformed.
        let cut = Array(bytes.dropLast(3))
        #expect(ProtobufBatchFastPath.deviceMotionBatch(cut) == nil)
        #expect(Self.reason(ProtobufFrameDecoder.decodeDeviceMotionBatch(cut)) == .wrongType)
    }

    // MARK: - Wire helpers

    private static func bits(_ values: [Double]) -> [UInt64] { values.map(\.bitPattern) }

    private static func reason<Model>(_ result: Result<Model, PayloadProblem>) -> PayloadProblem.Reason? {
        if case .failure(let problem) = result { problem.reason } else { nil }
    }

    private static func field(_ number: Int, packedFloats values: [Float]) -> [UInt8] {
        let body = values.flatMap(ProtobufWireBytes.littleEndian)
        return ProtobufWireBytes.varint(UInt64(number << 3 | 2)) + ProtobufWireBytes.varint(UInt64(body.count)) + body
    }

    private static func field(_ number: Int, float value: Float) -> [UInt8] {
        ProtobufWireBytes.varint(UInt64(number << 3 | 5)) + ProtobufWireBytes.littleEndian(value)
    }

    private static func field(_ number: Int, message body: [UInt8]) -> [UInt8] {
        ProtobufWireBytes.varint(UInt64(number << 3 | 2)) + ProtobufWireBytes.varint(UInt64(body.count)) + body
    }

    /// Four samples whose x column is three packed values and one unpacked.
    private static func accelerometerColumns(xPacked: [Float], xUnpacked: Float) -> [UInt8] {
        let timestamps = (0..<4).flatMap { ProtobufWireBytes.littleEndian(10 + Double($0) / 800) }
        return ProtobufWireBytes.varint(2 << 3 | 2) + ProtobufWireBytes.varint(UInt64(timestamps.count)) + timestamps
            + field(3, packedFloats: xPacked) + field(3, float: xUnpacked)
            + field(4, packedFloats: [0, 0, 0, 0]) + field(5, packedFloats: [1, 1, 1, 1])
    }

    /// The batch with `extra` appended to its first sample's body (field 2 of the batch).
    private static func appendingToFirstSample(_ bytes: [UInt8], _ extra: [UInt8]) -> [UInt8] {
        var first = bytes.withUnsafeBytes { buffer in
            var reader = ProtobufWireReader(buffer, range: 0..<buffer.count)
            var first: (tag: Int, body: Range<Int>)?
            while first == nil, let field = try? reader.nextField() {
                let start = reader.position
                if field.number == 2, let body = try? reader.lengthDelimited() {
                    first = (start, body)
                } else {
                    try? reader.skip(field.wireType, number: field.number)
                }
            }
            return first
        }
        guard let sample = first.take() else { return bytes }
        let body = Array(bytes[sample.body]) + extra
        return Array(bytes[..<(sample.tag - 1)]) + field(2, message: body) + Array(bytes[sample.body.upperBound...])
    }
}

extension Vector3 {
    fileprivate var components: [Double] { [x, y, z] }
}
