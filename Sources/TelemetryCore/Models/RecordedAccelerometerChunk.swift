/// A chunk of recorded accelerometer data (`recorder/accelerometer`).
public struct RecordedAccelerometerChunk: Sendable, Equatable, Hashable {
    /// The recording batch the samples belong to (`CMRecordedAccelerometerData.identifier`);
    /// increases monotonically with each new batch.
    public var identifier: UInt64
    /// The samples, oldest first.
    public var samples: [RecordedAccelerometerSample]
    /// Per device and stream, +1 per frame; `nil` when the sender does not number frames.
    public var sequence: UInt64?

    /// Creates a recorded chunk.
    /// - Parameters:
    ///   - identifier: the recording batch identifier.
    ///   - samples: the samples, oldest first.
    ///   - sequence: the frame's sequence number, if any.
    public init(identifier: UInt64, samples: [RecordedAccelerometerSample], sequence: UInt64? = nil) {
        self.identifier = identifier
        self.samples = samples
        self.sequence = sequence
    }
}
