/// A frame of samples, `{"samples":[…]}` on the wire, with the contract's optional sequence.
///
/// CMBatchedSensorManager delivers one batch per second (800 accelerometer or 200
/// device-motion samples); `motion` and `headphone/motion` frames carry a few samples each.
public struct SampleBatch<Sample: Sendable & Equatable>: Sendable, Equatable {
    /// The samples, oldest first; each keeps its own timestamp.
    public var samples: [Sample]
    /// Per device and stream, +1 per frame; `nil` when the sender does not number frames.
    public var sequence: UInt64?

    /// Creates a batch.
    /// - Parameters:
    ///   - samples: the samples, oldest first.
    ///   - sequence: the frame's sequence number, if any.
    public init(samples: [Sample], sequence: UInt64? = nil) {
        self.samples = samples
        self.sequence = sequence
    }
}

/// A `batched/accelerometer` frame: about one second of 800 Hz raw accelerometer samples.
public typealias AccelerometerBatch = SampleBatch<AccelerometerSample>

/// A `batched/device-motion`, `motion` or `headphone/motion` frame of device-motion samples.
public typealias DeviceMotionBatch = SampleBatch<DeviceMotion>
