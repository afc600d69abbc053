/// A recorded accelerometer sample as the gateway stores it: the sample and the recording batch
/// it belongs to (`CMRecordedAccelerometerData.identifier`). The store de-duplicates by
/// (``identifier``, `sample.timestamp`).
public struct StoredRecorderSample: Sendable, Equatable, Hashable {
    /// The recording batch the sample belongs to.
    public var identifier: UInt64
    /// The sample.
    public var sample: RecordedAccelerometerSample

    /// Creates a stored sample.
    public init(identifier: UInt64, sample: RecordedAccelerometerSample) {
        self.identifier = identifier
        self.sample = sample
    }
}

extension StoredRecorderSample: ContractJSONWritable {
    /// Writes `{"identifier":…,"timestamp":…,"startDate":…,"acceleration":{"x","y","z"}}`.
    public func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("identifier", identifier)
            writer.field("timestamp", sample.timestamp)
            writer.field("startDate", sample.startDate)
            writer.objectField("acceleration", sample.acceleration)
        }
    }
}
