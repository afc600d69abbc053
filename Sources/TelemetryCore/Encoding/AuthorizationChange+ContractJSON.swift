extension AuthorizationChange {
    /// Writes the `authorization` payload `{"status":"authorized"|…,"date"}`.
    /// - Parameters:
    ///   - writer: the writer to append to.
    ///   - sequence: the frame's sequence number, if the sender numbers frames.
    public func write(to writer: inout JSONWriter, sequence: UInt64? = nil) {
        writer.object { writer in
            writer.sequenceField(sequence)
            writer.enumField("status", status)
            writer.field("date", date)
        }
    }
}
