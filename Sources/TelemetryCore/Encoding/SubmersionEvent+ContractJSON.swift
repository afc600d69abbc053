extension SubmersionEvent {
    /// Writes the `submersion/event` payload `{"date","state":"unknown"|"notSubmerged"|"submerged"}`.
    /// - Parameters:
    ///   - writer: the writer to append to.
    ///   - sequence: the frame's sequence number, if the sender numbers frames.
    public func write(to writer: inout JSONWriter, sequence: UInt64? = nil) {
        writer.object { writer in
            writer.sequenceField(sequence)
            writer.field("date", date)
            writer.enumField("state", state)
        }
    }
}
