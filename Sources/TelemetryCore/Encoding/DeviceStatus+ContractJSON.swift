extension DeviceStatus {
    /// Writes the `status` payload `{"state":"online"|"offline","date"?}`.
    /// - Parameters:
    ///   - writer: the writer to append to.
    ///   - sequence: the frame's sequence number, if the sender numbers frames.
    public func write(to writer: inout JSONWriter, sequence: UInt64? = nil) {
        writer.object { writer in
            writer.sequenceField(sequence)
            writer.enumField("state", state)
            writer.field("date", date)
        }
    }
}
