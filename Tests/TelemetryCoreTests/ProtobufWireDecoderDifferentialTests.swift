import TelemetrySimulation
import Testing

@testable import TelemetryCore

/// The hand-written wire decoders of the batches against SwiftProtobuf's generated decoding of
/// the same bytes: same acceptance, same values, over valid and mutated frames.
@Suite struct ProtobufWireDecoderDifferentialTests {
    @Test("accelerometer batches: the wire decoder accepts and reads exactly what SwiftProtobuf does")
    func accelerometer() {
        var random = SplitMix64(seed: 0xD1FF_0001)
        let base = ProtobufFrameEncoder.encode(ProtobufFixtures.accelerometerBatch(count: 24, sequence: 11))
        var agreedFrames = 0
        for round in 0..<3_000 {
            let bytes = round == 0 ? base : Self.mutate(base, using: &random)
            let reference = ProtobufFrameDecoder.generated(Wearable_V1_AccelerometerBatch.self, bytes)
            let decoded = ProtobufFrameDecoder.decodeAccelerometerBatch(bytes)
            guard let reference else {
                #expect(Self.reason(decoded) == .wrongType, "round \(round): SwiftProtobuf refused what the wire decoder read: \(decoded)")
                continue
            }
            switch decoded {
            case .success(let batch):
                #expect(batch.sequence == (reference.hasSequence ? reference.sequence : nil), "round \(round)")
                #expect(batch.samples.map(\.timestamp) == reference.timestamp, "round \(round)")
                #expect(batch.samples.map { Float($0.acceleration.x) } == reference.x, "round \(round)")
                #expect(batch.samples.map { Float($0.acceleration.z) } == reference.z, "round \(round)")
                agreedFrames += 1
            case .failure(let problem):
                // Parsed by both; refused only by the model's checks.
                #expect(problem.reason != .wrongType, "round \(round): \(problem)")
            }
        }
        #expect(agreedFrames > 100)
    }

    @Test("device-motion batches: the wire decoder accepts and reads exactly what SwiftProtobuf does")
    func deviceMotion() {
        var random = SplitMix64(seed: 0xD1FF_0002)
        let bases = [
            ProtobufFrameEncoder.encode(ProtobufFixtures.deviceMotionBatch(for: .motion)),
            ProtobufFrameEncoder.encode(ProtobufFixtures.deviceMotionBatch(for: .headphoneMotion)),
        ]
        var agreedFrames = 0
        for round in 0..<3_000 {
            let base = bases[round % 2]
            let bytes = round < 2 ? base : Self.mutate(base, using: &random)
            let reference = ProtobufFrameDecoder.generated(Wearable_V1_DeviceMotionBatch.self, bytes)
            let decoded = ProtobufFrameDecoder.decodeDeviceMotionBatch(bytes)
            guard let reference else {
                #expect(Self.reason(decoded) == .wrongType, "round \(round): SwiftProtobuf refused what the wire decoder read: \(decoded)")
                continue
            }
            switch decoded {
            case .success(let batch):
                #expect(batch.sequence == (reference.hasSequence ? reference.sequence : nil), "round \(round)")
                #expect(batch.samples.count == reference.samples.count, "round \(round)")
                for (sample, message) in zip(batch.samples, reference.samples) {
                    // Every component: the fast path reads most of them from fixed places.
                    #expect(sample.timestamp.bitPattern == message.timestamp.bitPattern, "round \(round)")
                    #expect(
                        [sample.attitude.x, sample.attitude.y, sample.attitude.z, sample.attitude.w].map(Float.init)
                            == [message.attitude.x, message.attitude.y, message.attitude.z, message.attitude.w], "round \(round)")
                    for (vector, wire) in [
                        (sample.rotationRate, message.rotationRate), (sample.gravity, message.gravity),
                        (sample.userAcceleration, message.userAcceleration),
                    ] {
                        #expect([vector.x, vector.y, vector.z].map(Float.init) == [wire.x, wire.y, wire.z], "round \(round)")
                    }
                    #expect(sample.sensorLocation.rawValue == message.sensorLocation.rawValue)
                    #expect((sample.magneticField != nil) == message.hasMagneticField)
                    if let magnetic = sample.magneticField {
                        let wire = message.magneticField
                        #expect([magnetic.field.x, magnetic.field.y, magnetic.field.z].map(Float.init) == [wire.x, wire.y, wire.z], "round \(round)")
                        #expect(magnetic.accuracy.rawValue == Int32(wire.accuracy.rawValue), "round \(round)")
                    }
                    #expect(sample.heading.map(Float.init) == (message.hasHeading && message.heading >= 0 ? message.heading : nil))
                }
                agreedFrames += 1
            case .failure(let problem):
                #expect(problem.reason != .wrongType, "round \(round): \(problem)")
            }
        }
        #expect(agreedFrames > 100)
    }

    @Test("a ten-byte varint whose last byte sets bits above 2^63: read with those bits dropped, as SwiftProtobuf reads it", arguments: [UInt8(0x01), 0x06, 0x7F])
    func tenByteVarint(last: UInt8) throws {
        // Found by scripts/fuzz.sh frame-decoder (Fuzz/regressions/frame-decoder): the wire reader
        // refused such a varint as malformed while SwiftProtobuf read it.
        let varint = [UInt8](repeating: 0xFF, count: 9) + [last]
        let base = ProtobufFrameEncoder.encode(ProtobufFixtures.accelerometerBatch(count: 4, sequence: 11))
        // As the sequence (field 1, wire type 0; the last one wins) and as an unknown field 15.
        for bytes in [base + [0x08] + varint, base + [0x78] + varint] {
            let reference = try #require(ProtobufFrameDecoder.generated(Wearable_V1_AccelerometerBatch.self, bytes))
            let batch = try ProtobufFrameDecoder.decodeAccelerometerBatch(bytes).get()
            #expect(batch.sequence == reference.sequence)
            #expect(batch.samples.map(\.timestamp) == reference.timestamp)
        }
        // 63 bits of ones from the first nine bytes; bit 63 from the last byte's lowest bit.
        let expected = UInt64.max >> 1 | UInt64(last & 1) << 63
        #expect(try ProtobufFrameDecoder.decodeAccelerometerBatch(base + [0x08] + varint).get().sequence == expected)
    }

    private static func reason<Model>(_ result: Result<Model, PayloadProblem>) -> PayloadProblem.Reason? {
        if case .failure(let problem) = result { problem.reason } else { nil }
    }

    private static func mutate(_ base: [UInt8], using random: inout SplitMix64) -> [UInt8] {
        var bytes = base
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<4, using: &random) {
            case 0 where !bytes.isEmpty: bytes[position] ^= 1 << UInt8.random(in: 0..<8, using: &random)
            case 1: bytes.insert(UInt8.random(in: 0...255, using: &random), at: position)
            case 2 where !bytes.isEmpty: bytes.remove(at: position)
            default: bytes.removeLast(Int.random(in: 0...min(8, bytes.count), using: &random))
            }
        }
        return bytes
    }
}
