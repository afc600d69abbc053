extension AltitudeSample {
    /// Writes the `altimeter` payload `{"timestamp","relativeAltitude","pressure"}`
    /// (seconds since boot, m, kPa).
    /// - Parameters:
    ///   - writer: the writer to append to.
    ///   - sequence: the frame's sequence number, if the sender numbers frames.
    public func write(to writer: inout JSONWriter, sequence: UInt64? = nil) {
        writer.object { writer in
            writer.sequenceField(sequence)
            writer.field("timestamp", timestamp)
            writer.field("relativeAltitude", relativeAltitude)
            writer.field("pressure", pressure)
        }
    }
}
