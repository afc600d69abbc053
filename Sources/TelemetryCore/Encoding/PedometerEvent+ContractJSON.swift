extension PedometerEvent {
    /// Writes the `pedometer/event` payload `{"date","type":"pause"|"resume"}`.
    /// - Parameters:
    ///   - writer: the writer to append to.
    ///   - sequence: the frame's sequence number, if the sender numbers frames.
    public func write(to writer: inout JSONWriter, sequence: UInt64? = nil) {
        writer.object { writer in
            writer.sequenceField(sequence)
            writer.field("date", date)
            writer.enumField("type", type)
        }
    }
}
