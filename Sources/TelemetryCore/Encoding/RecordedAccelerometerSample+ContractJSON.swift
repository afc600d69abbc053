extension RecordedAccelerometerSample: ContractJSONWritable {
    /// Writes `{"timestamp":…,"startDate":…,"acceleration":{"x","y","z"}}`
    /// (seconds since boot, Unix epoch seconds, g).
    public func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("timestamp", timestamp)
            writer.field("startDate", startDate)
            writer.objectField("acceleration", acceleration)
        }
    }
}
