extension HeadphoneConnectionEvent {
    /// Writes the `headphone/connection` payload `{"event":"connected"|"disconnected","date"}`.
    /// - Parameters:
    ///   - writer: the writer to append to.
    ///   - sequence: the frame's sequence number, if the sender numbers frames.
    public func write(to writer: inout JSONWriter, sequence: UInt64? = nil) {
        writer.object { writer in
            writer.sequenceField(sequence)
            writer.enumField("event", kind)
            writer.field("date", date)
        }
    }
}
