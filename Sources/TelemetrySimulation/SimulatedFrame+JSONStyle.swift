import TelemetryCore

extension SimulatedFrame {
    /// The frame with its JSON written in `style` (``JSONStyle``).
    ///
    /// Only the high-rate streams change (`batched/*`, `motion`, `headphone/motion`,
    /// `recorder/accelerometer`): their frame is decoded with the gateway's JSON decoder, every
    /// sensor value and timestamp gets detail below its resolution (seeded by the device, stream
    /// and sequence, so repeatable; at most 10⁻⁶, headings 10⁻³, which keeps timestamps in order
    /// and every value within its bounds), and the models are written again by ``FrameEncoder``,
    /// which prints each double as its shortest round-trip text. ``JSONStyle/reordered`` then
    /// reverses every object's members and adds whitespace. Other streams, binary frames and
    /// ``JSONStyle/tidy`` return `self`.
    /// - Parameter style: the wanted style.
    /// - Returns: the restyled frame.
    public func styled(_ style: JSONStyle) -> SimulatedFrame {
        guard style != .tidy, encoding == .json, let inbound = InboundStream(rawValue: stream), inbound.isHighRate,
            case .success(let model) = FrameDecoder.decodeJSON(payload, stream: inbound)
        else { return self }
        let salt = model.sequence ?? time.bitPattern
        var random = SplitMix64(seed: SplitMix64.derivedSeed(SplitMix64.stableHash("\(deviceId)/\(stream)"), salt: salt))
        let precise: [UInt8]
        switch model {
        case .batchedAccelerometer(let batch):
            precise = FrameEncoder.encode(Self.detailed(batch, &random))
        case .batchedDeviceMotion(let batch), .motion(let batch), .headphoneMotion(let batch):
            precise = FrameEncoder.encode(Self.detailed(batch, &random))
        case .recorderAccelerometer(let chunk):
            precise = FrameEncoder.encode(Self.detailed(chunk, &random))
        default:
            return self
        }
        var frame = self
        frame.payload = style == .reordered ? JSONMemberReversal.rewrite(precise) : precise
        return frame
    }

    /// `value` plus a seeded fraction of `step` (kept inside `[0, limit)` when given).
    private static func detailed(_ value: Double, _ step: Double, _ random: inout SplitMix64, below limit: Double? = nil) -> Double {
        let detail = random.nextUnitInterval() * step
        if let limit, value + detail >= limit { return value - detail }
        return value + detail
    }

    private static func detailed(_ vector: Vector3, _ random: inout SplitMix64) -> Vector3 {
        Vector3(x: detailed(vector.x, 1e-6, &random), y: detailed(vector.y, 1e-6, &random), z: detailed(vector.z, 1e-6, &random))
    }

    private static func detailed(_ batch: AccelerometerBatch, _ random: inout SplitMix64) -> AccelerometerBatch {
        var batch = batch
        for index in batch.samples.indices {
            batch.samples[index].timestamp = detailed(batch.samples[index].timestamp, 1e-6, &random)
            batch.samples[index].acceleration = detailed(batch.samples[index].acceleration, &random)
        }
        return batch
    }

    private static func detailed(_ batch: DeviceMotionBatch, _ random: inout SplitMix64) -> DeviceMotionBatch {
        var batch = batch
        for index in batch.samples.indices {
            var sample = batch.samples[index]
            sample.timestamp = detailed(sample.timestamp, 1e-6, &random)
            let attitude = detailed(sample.attitude.vector, &random)
            sample.attitude = Quaternion(x: attitude.x, y: attitude.y, z: attitude.z, w: detailed(sample.attitude.w, 1e-6, &random))
            sample.rotationRate = detailed(sample.rotationRate, &random)
            sample.gravity = detailed(sample.gravity, &random)
            sample.userAcceleration = detailed(sample.userAcceleration, &random)
            if let field = sample.magneticField?.field { sample.magneticField?.field = detailed(field, &random) }
            sample.heading = sample.heading.map { detailed($0, 1e-3, &random, below: 360) }
            batch.samples[index] = sample
        }
        return batch
    }

    private static func detailed(_ chunk: RecordedAccelerometerChunk, _ random: inout SplitMix64) -> RecordedAccelerometerChunk {
        var chunk = chunk
        for index in chunk.samples.indices {
            chunk.samples[index].timestamp = detailed(chunk.samples[index].timestamp, 1e-6, &random)
            chunk.samples[index].startDate = detailed(chunk.samples[index].startDate, 1e-6, &random)
            chunk.samples[index].acceleration = detailed(chunk.samples[index].acceleration, &random)
        }
        return chunk
    }
}
