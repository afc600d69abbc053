extension RecordedAccelerometerChunk {
    /// Writes the `recorder/accelerometer` payload
    /// `{"sequence"?:n,"identifier":id,"samples":[{"timestamp","startDate","acceleration"}…]}`.
    public func write(to writer: inout JSONWriter) {
        writer.object { writer in
            writer.sequenceField(sequence)
            writer.field("identifier", identifier)
            writer.arrayField("samples", samples)
        }
    }
}
