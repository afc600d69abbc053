import MQTTVocabulary

public import TelemetryCore

extension TremorScenario {
    /// How ``frames(delivery:)`` publishes the chunks.
    public struct Delivery: Sendable, Equatable {
        /// Samples per chunk: the 50 Hz slots are cut into blocks of this many (150: 3 s), so a
        /// chunk during a gap is shorter and one entirely inside a gap is not sent.
        public var samplesPerChunk = 150
        /// Seconds from a chunk's last sample to its publication (watchOS 3+: samples are
        /// available after ≈ 3 s).
        public var delay = 3.0
        /// Publish the chunk a third of the way through a second time right after itself (same
        /// payload and `sequence`): a redelivery the store must de-duplicate.
        public var duplicateChunk = false
        /// Publish the chunks two thirds of the way through in swapped order.
        public var reorderChunks = false

        /// Creates the defaults: 150-sample chunks 3 s after their last sample, in order, once.
        public init() {}
    }

    /// The samples cut into `recorder/accelerometer` chunks, oldest first. Chunk k (counting only
    /// chunks that have samples) has identifier ``firstIdentifier`` + k, since each delivery is
    /// a new recording batch, and no `sequence`.
    /// - Parameter samplesPerChunk: 50 Hz slots per chunk (1…3,000, the contract's limit).
    public func chunks(samplesPerChunk: Int = 150) -> [RecordedAccelerometerChunk] {
        precondition((1...3_000).contains(samplesPerChunk), "1…3,000 samples per chunk")
        var chunks: [RecordedAccelerometerChunk] = []
        var block = -1
        for sample in samples {
            // Samples sit a fraction of a slot after their slot's start, so rounding down finds it.
            let slot = Int(((sample.startDate - startDate) * options.sampleRate).rounded(.down))
            if slot / samplesPerChunk != block || chunks.isEmpty {
                block = slot / samplesPerChunk
                chunks.append(RecordedAccelerometerChunk(identifier: firstIdentifier + UInt64(chunks.count), samples: []))
            }
            chunks[chunks.count - 1].samples.append(sample)
        }
        return chunks
    }

    /// The frames a device publishes: its retained `hello` (an Apple Watch Series 9), then one
    /// `recorder/accelerometer` frame per chunk with `sequence` 1, 2, …, at its last sample's
    /// time plus the delay (seconds since ``startDate``), optionally with a duplicate and a
    /// swapped pair.
    /// - Parameter delivery: chunking, delay, duplicate and reorder.
    /// - Returns: frames in publishing order.
    public func frames(delivery: Delivery = Delivery()) -> [SimulatedFrame] {
        let descriptor = DeviceDescriptor(
            model: "Apple Watch Series 9", platform: "watchOS", osVersion: "10.1", app: "com.example.tremor", authorization: .authorized,
            wristLocation: .left, crownOrientation: .right)
        var frames = [SimulatedFrame(deviceId: deviceId, stream: "hello", payload: FrameEncoder.encode(descriptor), retain: true, qos: .atLeastOnce, time: 0)]
        let chunks = chunks(samplesPerChunk: delivery.samplesPerChunk)
        for (index, chunk) in chunks.enumerated() {
            var numbered = chunk
            numbered.sequence = UInt64(index + 1)
            let time = (chunk.samples.last.map { $0.startDate - startDate } ?? 0) + delivery.delay
            frames.append(
                SimulatedFrame(
                    deviceId: deviceId, stream: InboundStream.recorderAccelerometer.rawValue, payload: FrameEncoder.encode(numbered), retain: false,
                    qos: .atLeastOnce, time: time))
        }
        let count = chunks.count
        // Frame 0 is the hello: chunk k is frame k + 1. Swap first, so the duplicate's index holds.
        if delivery.reorderChunks, count >= 2 {
            let first = max(0, min(count - 2, 2 * count / 3)) + 1
            let (earlier, later) = (frames[first].time, frames[first + 1].time)
            frames.swapAt(first, first + 1)
            (frames[first].time, frames[first + 1].time) = (earlier, later)
        }
        if delivery.duplicateChunk, count >= 1 {
            let original = count / 3 + 1
            frames.insert(frames[original], at: original + 1)
        }
        return frames
    }
}
