import DeviceProtobufEncoder
import TelemetryCore
import TelemetrySimulation
import Testing

/// The device-side writer against the gateway: its bytes are what the gateway's own encoder
/// writes for the same values, and the gateway decodes them to the values sent.
@Suite("Device-side protobuf writer")
struct DeviceProtobufEncoderTests {
    /// One second of a simulated watch's batches (tennis, so the values move).
    static let batches: (accelerometer: AccelerometerBatch, motion: DeviceMotionBatch) = {
        var generator = TrafficGenerator(seed: 4, devices: [.appleWatchSeries9(id: "w1", activity: .tennis)], startDate: 1_700_000_000)
        var accelerometer: AccelerometerBatch?
        var motion: DeviceMotionBatch?
        for frame in generator.advance(to: 2.5) {
            switch FrameDecoder.decodeJSON(frame.payload, stream: InboundStream(rawValue: frame.stream) ?? .hello) {
            case .success(.batchedAccelerometer(let batch)): accelerometer = batch
            case .success(.batchedDeviceMotion(let batch)): motion = batch
            default: break
            }
        }
        return (accelerometer!, motion!)
    }()

    @Test("an accelerometer batch: the gateway's bytes, decoded to the float32 values sent")
    func accelerometer() throws {
        let batch = Self.batches.accelerometer
        let payload = TelemetryProtobufWriter.accelerometerBatch(
            sequence: batch.sequence, timestamps: batch.samples.map(\.timestamp), x: batch.samples.map { Float($0.acceleration.x) },
            y: batch.samples.map { Float($0.acceleration.y) }, z: batch.samples.map { Float($0.acceleration.z) })
        #expect(payload == ProtobufFrameEncoder.encode(batch))
        let decoded = try ProtobufFrameDecoder.decodeAccelerometerBatch(payload).get()
        #expect(decoded.samples.count == 800 && decoded.sequence == batch.sequence)
        for (sample, sent) in zip(decoded.samples, batch.samples) {
            #expect(sample.timestamp == sent.timestamp && sample.acceleration.y == Double(Float(sent.acceleration.y)))
        }
    }

    @Test("a device-motion batch with magnetic field and heading: the gateway's bytes and values")
    func deviceMotion() throws {
        var batch = Self.batches.motion
        // Cover every optional part and a negative enum (uncalibrated) too.
        batch.samples[0].magneticField = MagneticField(field: Vector3(x: 20, y: -3.5, z: 0), accuracy: .uncalibrated)
        batch.samples[1].heading = 0
        batch.samples[2].sensorLocation = .headphoneRight
        let samples = batch.samples.map { sample in
            MotionSample(
                timestamp: sample.timestamp,
                attitude: SIMD4(Float(sample.attitude.x), Float(sample.attitude.y), Float(sample.attitude.z), Float(sample.attitude.w)),
                rotationRate: SIMD3(Float(sample.rotationRate.x), Float(sample.rotationRate.y), Float(sample.rotationRate.z)),
                gravity: SIMD3(Float(sample.gravity.x), Float(sample.gravity.y), Float(sample.gravity.z)),
                userAcceleration: SIMD3(Float(sample.userAcceleration.x), Float(sample.userAcceleration.y), Float(sample.userAcceleration.z)),
                sensorLocation: sample.sensorLocation.rawValue,
                magneticField: sample.magneticField.map {
                    (field: SIMD3(Float($0.field.x), Float($0.field.y), Float($0.field.z)), accuracy: Int($0.accuracy.rawValue))
                },
                heading: sample.heading.map { Float($0) })
        }
        let payload = TelemetryProtobufWriter.deviceMotionBatch(sequence: batch.sequence, samples: samples)
        #expect(payload == ProtobufFrameEncoder.encode(batch))
        let decoded = try ProtobufFrameDecoder.decodeDeviceMotionBatch(payload).get()
        #expect(decoded.samples.count == batch.samples.count)
        #expect(decoded.samples[0].magneticField?.accuracy == .uncalibrated && decoded.samples[1].heading == 0)
        #expect(decoded.samples[2].sensorLocation == .headphoneRight)
        #expect(decoded.samples[5].gravity.z == Double(Float(batch.samples[5].gravity.z)))
    }
}
