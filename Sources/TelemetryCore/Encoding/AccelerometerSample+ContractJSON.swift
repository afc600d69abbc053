extension AccelerometerSample: ContractJSONWritable {
    /// Writes `{"timestamp":…,"acceleration":{"x","y","z"}}` (seconds since boot, g).
    public func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.field("timestamp", timestamp)
            writer.objectField("acceleration", acceleration)
        }
    }
}
