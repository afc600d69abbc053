extension DeviceDescriptor {
    /// Writes the `hello` payload `{"model","platform","osVersion","app","authorization",
    /// "wristLocation"?,"crownOrientation"?,"headphones"?}`; absent optionals are omitted.
    /// - Parameters:
    ///   - writer: the writer to append to.
    ///   - sequence: the frame's sequence number, if the sender numbers frames.
    public func write(to writer: inout JSONWriter, sequence: UInt64? = nil) {
        writer.object { writer in
            writer.sequenceField(sequence)
            writer.field("model", model)
            writer.field("platform", platform)
            writer.field("osVersion", osVersion)
            writer.field("app", app)
            writer.enumField("authorization", authorization)
            writer.enumField("wristLocation", wristLocation)
            writer.enumField("crownOrientation", crownOrientation)
            writer.field("headphones", headphones)
        }
    }
}
