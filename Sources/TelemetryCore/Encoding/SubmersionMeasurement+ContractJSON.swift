extension SubmersionMeasurement {
    /// Writes the `submersion/measurement` payload
    /// `{"date","depth"?,"pressure"?,"surfacePressure","submersionState"}` (m, kPa, kPa).
    /// - Parameters:
    ///   - writer: the writer to append to.
    ///   - sequence: the frame's sequence number, if the sender numbers frames.
    public func write(to writer: inout JSONWriter, sequence: UInt64? = nil) {
        writer.object { writer in
            writer.sequenceField(sequence)
            writer.field("date", date)
            writer.field("depth", depth)
            writer.field("pressure", pressure)
            writer.field("surfacePressure", surfacePressure)
            writer.enumField("submersionState", submersionState)
        }
    }
}
